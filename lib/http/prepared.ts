import { createHash } from 'node:crypto'

/** Everything a precomputed response (the manifest, a view of it, a discovery document) needs, computed once. */
export interface PreparedResponse {
  body: Buffer
  checksum: string
  /** The ETag header value, `"<checksum>"`. */
  etag: string
  headers: Record<string, string>
  /** The headers of a HEAD 200: those of a GET, with the length of the body it leaves out. */
  headHeaders: Record<string, string>
  notModifiedHeaders: Record<string, string>
}

/** What a precomputed response is made from. */
export interface ResponseParts {
  /** The body's text, sent as UTF-8. */
  body: string
  contentType: string
  cacheControl: string
  /** The ETag's value: the manifest's own checksum; by default a hash of the body's bytes. */
  checksum?: string
  /** `link`: the RFC 8288 header naming the plugin's other endpoints, on the 200 and the 304. */
  link?: string
  /** `vary`, on the 200 and the 304. */
  vary?: string
}

/** The bytes, ETag and headers of a 200, a HEAD 200 and a 304, from its parts. */
export function prepareResponse (parts: ResponseParts): PreparedResponse {
  const body = Buffer.from(parts.body, 'utf8')
  const checksum = parts.checksum ?? createHash('sha256').update(body).digest('base64url').slice(0, 27)
  const etag = `"${checksum}"`
  const notModifiedHeaders: Record<string, string> = { etag, 'cache-control': parts.cacheControl }
  if (parts.link !== undefined) notModifiedHeaders.link = parts.link
  if (parts.vary !== undefined) notModifiedHeaders.vary = parts.vary
  const headers: Record<string, string> = { 'content-type': parts.contentType, ...notModifiedHeaders }
  return { body, checksum, etag, headers, headHeaders: { ...headers, 'content-length': String(body.length) }, notModifiedHeaders }
}
