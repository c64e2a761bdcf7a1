import type { FastifyInstance, RouteShorthandOptions } from 'fastify'
import type { InvokeLimits } from '../options.js'
import { envelopeErrorHandler } from './envelope.js'
import { executeHandler } from './execute.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import type { EndpointContext } from './endpoint.js'
import { pipelineHandler } from './pipeline.js'

export interface InvokeConfig {
  basePath: string
  invoke: false | InvokeLimits
  routeLog: Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>
}

/** Adds `POST {basePath}/execute` and `POST {basePath}/pipeline`, and their links, unless `invoke` is false. */
export function registerInvokeRoutes (fastify: FastifyInstance, config: InvokeConfig, { dispatcher, origins, links }: EndpointContext): void {
  if (config.invoke === false) return
  const options: RouteShorthandOptions = { ...config.routeLog, onRequest: origins.onRequest, errorHandler: envelopeErrorHandler, schema: { hide: true } as RouteShorthandOptions['schema'] }
  const execute = `${config.basePath}/execute`
  const pipeline = `${config.basePath}/pipeline`
  fastify.post(execute, options, executeHandler(dispatcher))
  fastify.post(pipeline, options, pipelineHandler(dispatcher, config.invoke))
  links.add(execute, LINK_RELATIONS.execute)
  links.add(pipeline, LINK_RELATIONS.pipeline)
}
