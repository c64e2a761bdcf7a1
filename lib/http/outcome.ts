import { STATUS_CODES, type OutgoingHttpHeaders } from 'node:http'
import { codeOfStatus, type CommandErrorBody, type CommandFailure, type CommandSuccess } from '../manifest/invocation.js'

/**
 * A command's outcome, the response headers of its route that are passed on to the caller, and the size
 * of the route's body (what holding the outcome costs a pipeline).
 */
export type Outcome = (CommandSuccess | CommandFailure) & { headers?: OutgoingHttpHeaders, bytes?: number }

/** What an inner response looks like to us (the part of light-my-request's response that is read). */
export interface RouteResponse {
  statusCode: number
  headers: OutgoingHttpHeaders
  rawPayload: Buffer
  /** `rawPayload` as UTF-8 text, already decoded by light-my-request. */
  payload: string
}

/** A refusal by the plugin itself, before or instead of calling the route. */
export function refusal (status: number, code: string, message: string): CommandFailure {
  return { ok: false, error: { code, message, status } }
}

const RELAYED = new Set(['www-authenticate', 'retry-after', 'set-cookie', 'ratelimit'])

/** The route's response as an outcome: its body as `result` on 2xx, its error as the error object otherwise. */
export function outcomeOf (response: RouteResponse): Outcome {
  const status = response.statusCode
  const outcome: Outcome = status >= 200 && status < 300 ? successOf(response) : failureOf(response)
  const headers = relayedHeaders(response.headers)
  if (headers !== undefined) outcome.headers = headers
  outcome.bytes = response.rawPayload.length
  return outcome
}

function successOf ({ headers, rawPayload, payload }: RouteResponse): CommandSuccess {
  if (rawPayload.length === 0) return { ok: true, result: null }
  const contentType = headers['content-type'] as string | undefined
  const kind = bodyKind(contentType)
  if (kind === 'json') {
    try {
      return { ok: true, result: JSON.parse(payload) }
    } catch {
      // A route that calls its body JSON but sends something else: the text is all there is to pass on.
      return { ok: true, result: payload }
    }
  }
  if (kind === 'text') return { ok: true, result: payload }
  return { ok: true, result: rawPayload.toString('base64'), encoding: 'base64', contentType: contentType ?? 'application/octet-stream' }
}

/** `message` is what the route sent, never more: Fastify's error JSON `message`, a text body, else the status text. */
function failureOf ({ statusCode, headers, payload }: RouteResponse): CommandFailure {
  // A redirect or other non-2xx, non-error status cannot be the status of an envelope with a body.
  const status = statusCode >= 400 ? statusCode : 502
  const error: CommandErrorBody = { code: codeOfStatus(status), message: '', status }
  const kind = bodyKind(headers['content-type'] as string | undefined)
  let sent: unknown
  if (kind === 'json') sent = parseOrUndefined(payload)
  if (sent !== null && typeof sent === 'object') {
    const { message, code } = sent as { message?: unknown, code?: unknown }
    if (typeof message === 'string') error.message = message
    if (typeof code === 'string') error.cause = code
  } else if (kind === 'text') {
    error.message = payload
  }
  if (error.message === '') error.message = statusCode >= 400 ? STATUS_CODES[statusCode] ?? `HTTP ${statusCode}` : `The route answered ${statusCode}, which is not a result.`
  return { ok: false, error }
}

function bodyKind (contentType: string | undefined): 'json' | 'text' | 'other' {
  if (contentType === undefined) return 'other'
  const type = contentType.split(';', 1)[0].trim().toLowerCase()
  if (type === 'application/json' || type.endsWith('+json')) return 'json'
  if (type.startsWith('text/')) return 'text'
  return 'other'
}

function parseOrUndefined (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function relayedHeaders (headers: OutgoingHttpHeaders): OutgoingHttpHeaders | undefined {
  let relayed: OutgoingHttpHeaders | undefined
  for (const name of Object.keys(headers)) {
    if (!RELAYED.has(name) && !name.startsWith('ratelimit-') && !name.startsWith('x-ratelimit-')) continue
    relayed ??= {}
    relayed[name] = headers[name]
  }
  return relayed
}
