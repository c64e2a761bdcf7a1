import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { isPlainObject } from '../util/objects.js'
import { callerGone, type Dispatcher } from './dispatch.js'
import { sendInvalidRequest, sendOutcome } from './envelope.js'

/** `POST {basePath}/execute`, body `{ command, params?, requestId? }`: calls one command. */
export function executeHandler (dispatcher: Dispatcher): RouteHandlerMethod {
  return async function execute (request: FastifyRequest, reply: FastifyReply) {
    const body = request.body
    if (!isPlainObject(body)) return sendInvalidRequest(reply, 'The body must be a JSON object { command, params?, requestId? }.', undefined)
    const { command, params = {} } = body
    const requestId = body.requestId ?? undefined
    // Checked first: it is echoed in every answer, refusals included.
    if (!isRequestId(requestId)) return sendInvalidRequest(reply, `"requestId" must be a string of at most ${MAX_REQUEST_ID_LENGTH} UTF-16 units or a finite number when present.`, undefined)
    if (typeof command !== 'string') return sendInvalidRequest(reply, '"command" must be a string: the name of a command of the manifest.', requestId)
    if (!isPlainObject(params)) return sendInvalidRequest(reply, '"params" must be an object of param values when present.', requestId)
    return sendOutcome(reply, await dispatcher.dispatch(request, command, params, { signal: callerGone(reply) }), requestId)
  }
}

/** The most UTF-16 units of a string `requestId`. */
export const MAX_REQUEST_ID_LENGTH = 256

/** A `requestId` as the envelope takes it (`null` is read as absent before this). */
function isRequestId (value: unknown): boolean {
  if (value === undefined) return true
  if (typeof value === 'string') return value.length <= MAX_REQUEST_ID_LENGTH
  return typeof value === 'number' && Number.isFinite(value)
}
