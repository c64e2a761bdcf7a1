import type { OutgoingHttpHeaders } from 'node:http'
import { codeOfStatus, type CommandErrorBody, type CommandFailure, type CommandSuccess } from '../manifest/invocation.js'
import { isJsonText } from './json-text.js'
import { bufferedPieces } from './pieces.js'

/**
 * A command's outcome, the response headers of its route that are passed on to the caller, and the size
 * of the route's body (what holding the outcome costs a pipeline). `overBudget`: the route's response
 * passed the bytes the call may hold, and was cut off.
 */
export type Outcome = (CommandSuccess | CommandFailure) & { headers?: OutgoingHttpHeaders, bytes?: number, json?: string, overBudget?: boolean }

/** A route's response to an inner call, whichever way the route was called (`route-call.ts`). */
export interface RouteResponse {
  statusCode: number
  headers: OutgoingHttpHeaders
  /** The body as the route wrote it: one string (the router's inner response, when it wrote one), or bytes. */
  body: string | Buffer
}

/** A refusal by the plugin itself, before or instead of calling the route. */
export function refusal (status: number, code: string, message: string): CommandFailure {
  return { ok: false, error: { code, message, status } }
}

/**
 * A success whose result is the route's JSON text, checked and kept as text: execute splices it into its
 * envelope as it is. The value is parsed only where something reads `result` (a pipeline's references,
 * MCP's structured content), once.
 */
class JsonSuccess implements CommandSuccess {
  readonly ok = true
  private parsed: { value: unknown } | undefined

  constructor (readonly json: string) {}

  get result (): unknown {
    this.parsed ??= { value: JSON.parse(this.json) }
    return this.parsed.value
  }
}

const RELAYED = new Set(['www-authenticate', 'retry-after', 'set-cookie', 'ratelimit'])

/**
 * The route's response as an outcome: its body as `result` on 2xx, its error as the error object otherwise.
 * `streams`: the command is `stream: true`, and an event stream or NDJSON body is the array of its pieces.
 */
export function outcomeOf (response: RouteResponse, streams = false): Outcome {
  const status = response.statusCode
  const outcome: Outcome = status >= 200 && status < 300 ? successOf(response, streams) : failureOf(response)
  const headers = relayedHeaders(response.headers)
  if (headers !== undefined) outcome.headers = headers
  const { body } = response
  outcome.bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  return outcome
}

function successOf ({ headers, body }: RouteResponse, streams: boolean): CommandSuccess {
  if (body.length === 0) return { ok: true, result: null }
  const contentType = headers['content-type'] as string | undefined
  const pieces = streams ? bufferedPieces(contentType, body) : undefined
  if (pieces !== undefined) return { ok: true, result: pieces.value }
  const kind = bodyKind(contentType)
  if (kind === 'json') {
    const text = textOf(body)
    // A route that calls its body JSON but sends something else: the text is all there is to pass on.
    return isJsonText(text) ? new JsonSuccess(text) : { ok: true, result: text }
  }
  if (kind === 'text') return { ok: true, result: textOf(body) }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  return { ok: true, result: bytes.toString('base64'), encoding: 'base64', contentType: contentType ?? 'application/octet-stream' }
}

/**
 * The fields of a JSON error body that may carry its message, in the order they are read: Fastify's error
 * JSON `message`; `error`, what many apps answer (`{ "error": "query not found" }`; in Fastify's own JSON
 * it is the status text, after `message`); RFC 9457's `detail`, then its `title`.
 */
const MESSAGE_FIELDS = ['message', 'error', 'detail', 'title'] as const

/**
 * `message` is what the route sent, never more: the first non-empty string of MESSAGE_FIELDS in a JSON
 * body (any `+json` type, `application/problem+json` included), a text body, else the status text.
 */
function failureOf ({ statusCode, headers, body }: RouteResponse): CommandFailure {
  // A redirect or other non-2xx, non-error status cannot be the status of an envelope with a body.
  const status = statusCode >= 400 ? statusCode : 502
  const error: CommandErrorBody = { code: codeOfStatus(status), message: '', status }
  const kind = bodyKind(headers['content-type'] as string | undefined)
  let sent: unknown
  if (kind === 'json') sent = parseOrUndefined(textOf(body))
  if (sent !== null && typeof sent === 'object') {
    const fields = sent as Record<string, unknown>
    error.message = sentMessage(fields)
    if (typeof fields.code === 'string') error.cause = fields.code
  } else if (kind === 'text') {
    error.message = textOf(body)
  }
  if (error.message === '') error.message = statusCode >= 400 ? statusText(statusCode) : `The route answered ${statusCode}, which is not a result.`
  return { ok: false, error }
}

function sentMessage (fields: Record<string, unknown>): string {
  for (const field of MESSAGE_FIELDS) {
    const value = Object.hasOwn(fields, field) ? fields[field] : undefined
    if (typeof value === 'string' && value !== '') return value
  }
  return ''
}

const FASTIFY_JSON = 'application/json; charset=utf-8'

/**
 * The reason phrase of a status code. `node:http` is reached through `process.getBuiltinModule`: importing
 * it as an ES module builds its namespace, which on Node 22 and later loads undici for the web socket
 * classes http exports (about 17 ms of an app's start, for a phrase an error needs now and then).
 */
function statusText (statusCode: number): string {
  return process.getBuiltinModule('node:http').STATUS_CODES[statusCode] ?? `HTTP ${statusCode}`
}

function textOf (body: string | Buffer): string {
  return typeof body === 'string' ? body : body.toString('utf8')
}

function bodyKind (contentType: string | undefined): 'json' | 'text' | 'other' {
  if (contentType === undefined) return 'other'
  // What Fastify's own serializer sets: nearly every answer, known without taking the value apart.
  if (contentType === FASTIFY_JSON) return 'json'
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
