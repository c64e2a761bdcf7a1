import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { isPlainObject } from '../util/objects.js'
import type { Dispatcher } from './dispatch.js'
import { relayHeaders, sendInvalidRequest, sendOutcome } from './envelope.js'
import { acceptsEventStream, StreamRelay } from './streamed.js'

/**
 * `POST {basePath}/execute`, body `{ command, params?, requestId?, stream? }`: calls one command. Streamed
 * (`stream: true`, or an `Accept` of `text/event-stream` without `application/json`), the answer is an
 * event stream of the route's pieces and progress (`streamed.ts`).
 */
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
    const { stream = acceptsEventStream(request.headers.accept) } = body
    if (typeof stream !== 'boolean') return sendInvalidRequest(reply, '"stream" must be true or false when present.', requestId)
    if (!stream) return sendOutcome(reply, await dispatcher.dispatch(request, command, params, { caller: reply }), requestId)
    const relay = new StreamRelay(reply, dispatcher.streams(command), dispatcher.maxResultBytes)
    const outcome = await dispatcher.dispatch(request, command, params, { caller: reply, signal: relay.behind.signal, progress: relay.progress, tap: relay })
    // A failure before the first frame is the ordinary envelope; a success is always the stream.
    if (!relay.committed && !outcome.ok) return sendOutcome(reply, outcome, requestId)
    if (!relay.committed && outcome.headers !== undefined) relayHeaders(reply, outcome.headers)
    relay.end(outcome)
    return reply
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
