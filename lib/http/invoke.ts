import type { FastifyInstance } from 'fastify'
import type { InvokeLimits } from '../options.js'
import { envelopeErrorHandler, routeCookiesWin } from './envelope.js'
import { executeHandler } from './execute.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'
import { pipelineHandler } from './pipeline.js'

export interface InvokeConfig extends RouteLogConfig {
  basePath: string
  invoke: false | InvokeLimits
}

/** Adds `POST {basePath}/execute` and `POST {basePath}/pipeline`, and their links, unless `invoke` is false. */
export function registerInvokeRoutes (fastify: FastifyInstance, config: InvokeConfig, context: EndpointContext): void {
  if (config.invoke === false) return
  const route = pluginRoutes(fastify, config, context)
  const { basePath } = config
  route({ method: 'POST', url: `${basePath}/execute`, acts: true, rel: LINK_RELATIONS.execute, errorHandler: envelopeErrorHandler, onSend: routeCookiesWin, handler: executeHandler(context.dispatcher) })
  route({ method: 'POST', url: `${basePath}/pipeline`, acts: true, rel: LINK_RELATIONS.pipeline, errorHandler: envelopeErrorHandler, onSend: routeCookiesWin, handler: pipelineHandler(context.dispatcher, config.invoke) })
}
