import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { isPlainObject } from '../util/objects.js'
import type { Dispatcher } from './dispatch.js'
import { sendInvalidRequest, sendOutcome } from './envelope.js'

/** `POST {basePath}/execute`, body `{ command, params?, requestId? }`: calls one command. */
export function executeHandler (dispatcher: Dispatcher): RouteHandlerMethod {
  return async function execute (request: FastifyRequest, reply: FastifyReply) {
    const body = request.body
    if (!isPlainObject(body)) return sendInvalidRequest(reply, 'The body must be a JSON object { command, params?, requestId? }.', undefined)
    const { command, params = {}, requestId } = body
    if (typeof command !== 'string') return sendInvalidRequest(reply, '"command" must be a string: the name of a command of the manifest.', requestId)
    if (!isPlainObject(params)) return sendInvalidRequest(reply, '"params" must be an object of param values when present.', requestId)
    return sendOutcome(reply, await dispatcher.dispatch(request, command, params), requestId)
  }
}
