import type { FastifyInstance, RouteHandlerMethod } from 'fastify'
import type { InvokeLimits } from '../options.js'
import { envelopeErrorHandler, routeCookiesWin } from './envelope.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'

export interface InvokeConfig extends RouteLogConfig {
  basePath: string
  invoke: false | InvokeLimits
}

/** Adds `POST {basePath}/execute` and `POST {basePath}/pipeline`, and their links, unless `invoke` is false. */
export function registerInvokeRoutes (fastify: FastifyInstance, config: InvokeConfig, context: EndpointContext): void {
  if (config.invoke === false) return
  const route = pluginRoutes(fastify, config, context)
  const { basePath, invoke } = config
  const execute = loadedOnFirstRequest(async () => (await import('./execute.js')).executeHandler(await context.dispatcher()))
  const pipeline = loadedOnFirstRequest(async () => (await import('./pipeline.js')).pipelineHandler(await context.dispatcher(), invoke))
  route({ method: 'POST', url: `${basePath}/execute`, acts: true, rel: LINK_RELATIONS.execute, errorHandler: envelopeErrorHandler, onSend: routeCookiesWin, handler: execute })
  route({ method: 'POST', url: `${basePath}/pipeline`, acts: true, rel: LINK_RELATIONS.pipeline, errorHandler: envelopeErrorHandler, onSend: routeCookiesWin, handler: pipeline })
}

/**
 * A handler whose code is loaded on its first request: an app that never calls a command through the
 * endpoint does not compile that code when it starts. The requests that come while it loads wait for it;
 * then each request goes straight to the loaded handler.
 */
function loadedOnFirstRequest (load: () => Promise<RouteHandlerMethod>): RouteHandlerMethod {
  let handler: RouteHandlerMethod | undefined
  let loading: Promise<RouteHandlerMethod> | undefined
  return function svcHandlerOnDemand (this: FastifyInstance, request, reply) {
    if (handler !== undefined) return handler.call(this, request, reply)
    loading ??= load().then((loaded) => (handler = loaded))
    return loading.then(async (loaded) => await loaded.call(this, request, reply))
  }
}
