import type { FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'

/**
 * Request headers of the caller's connection, not of the request: the plugin never hands them on, to an
 * inner command call or to the MCP handler.
 */
const CONNECTION_HEADERS = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']

const HOP_BY_HOP: ReadonlySet<string> = new Set(CONNECTION_HEADERS)

/** Besides those of the connection, what describes the caller's own body: an inner call sends its own. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...CONNECTION_HEADERS, 'content-type', 'content-encoding', 'expect', 'accept-encoding'])

/**
 * The caller's headers for an inner command call: less hop-by-hop, proxy and entity headers, with those of
 * the call's own JSON `payload`. Node keeps only the first of repeated `Authorization` headers; all of them
 * are passed on, so the route refuses the ambiguity as it would.
 */
export function forwardedHeaders (request: FastifyRequest, payload: string | undefined): IncomingHttpHeaders {
  const source = request.headers
  const headers: IncomingHttpHeaders = {}
  for (const name of Object.keys(source)) {
    if (NOT_FORWARDED.has(name) || name.startsWith('proxy-')) continue
    headers[name] = source[name]
  }
  const all = repeatedAuthorization(request)
  if (all !== undefined) (headers as Record<string, unknown>).authorization = all
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
