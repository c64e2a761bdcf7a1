import type { FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { CONNECTION_HEADERS, ENTITY_HEADERS, isProxyHeader } from '../manifest/invocation.js'

/** The plugin never hands the connection's headers on, to an inner command call or to the MCP handler. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(CONNECTION_HEADERS)

const NOT_FORWARDED: ReadonlySet<string> = new Set([...CONNECTION_HEADERS, ...ENTITY_HEADERS])

/**
 * The caller's headers for an inner command call: less hop-by-hop, proxy and entity headers, then the
 * command's header params (`params`, lower-case names), which win over the caller's own header of the same
 * name, then those of the call's own JSON `payload`. Node keeps only the first of repeated `Authorization`
 * headers; all of them are passed on, so the route refuses the ambiguity as it would.
 */
export function forwardedHeaders (request: FastifyRequest, payload: string | undefined, params?: Readonly<Record<string, string>>): IncomingHttpHeaders {
  const source = request.headers
  const headers: IncomingHttpHeaders = {}
  for (const name of Object.keys(source)) {
    if (NOT_FORWARDED.has(name) || isProxyHeader(name)) continue
    headers[name] = source[name]
  }
  const all = repeatedAuthorization(request)
  if (all !== undefined) (headers as Record<string, unknown>).authorization = all
  if (params !== undefined) Object.assign(headers, params)
  if (payload !== undefined) {
    headers['content-type'] = 'application/json'
    headers['content-length'] = String(Buffer.byteLength(payload))
  }
  return headers
}

/** The request's headers as web `Headers` (one value each), less those of the connection. */
export function webHeaders (request: FastifyRequest): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers.set(name, value)
  }
  return headers
}

/**
 * Every `Authorization` value when the request repeats the header, else undefined. Node keeps only the
 * first in `request.headers`; two credentials are ambiguous, and the plugin refuses them.
 */
export function repeatedAuthorization (request: FastifyRequest): string[] | undefined {
  if (request.headers.authorization === undefined) return undefined
  const raw = request.raw.rawHeaders
  const values: string[] = []
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index].toLowerCase() === 'authorization') values.push(raw[index + 1])
  }
  return values.length > 1 ? values : undefined
}
