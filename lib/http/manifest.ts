import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { FST_SVC_NOT_READY } from '../errors.js'
import type { Manifest } from '../manifest/types.js'

/** Everything a manifest response needs, computed once when the manifest is built. */
export interface PreparedResponse {
  body: Buffer
  checksum: string
  /** The ETag header value, `"<checksum>"`. */
  etag: string
  headers: Record<string, string>
  notModifiedHeaders: Record<string, string>
}

/** `link`: the RFC 8288 header naming the plugin's other endpoints, on the 200 and the 304. */
export function prepareResponse (manifest: Readonly<Manifest>, maxAge: number, link?: string): PreparedResponse {
  const cacheControl = `public, max-age=${maxAge}`
  const etag = `"${manifest.checksum}"`
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', etag, 'cache-control': cacheControl }
  const notModifiedHeaders: Record<string, string> = { etag, 'cache-control': cacheControl }
  if (link !== undefined) headers.link = notModifiedHeaders.link = link
  return { body: Buffer.from(JSON.stringify(manifest), 'utf8'), checksum: manifest.checksum, etag, headers, notModifiedHeaders }
}

/**
 * True when an `If-None-Match` value names this checksum: `*`, or a comma-separated list whose entries
 * may be weak (`W/`), quoted or bare (a client may send the checksum copied from the body).
 */
export function matchesChecksum (ifNoneMatch: string, checksum: string): boolean {
  for (const entry of ifNoneMatch.split(',')) {
    let tag = entry.trim()
    if (tag === '*') return true
    if (tag.startsWith('W/')) tag = tag.slice(2)
    if (tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"')) tag = tag.slice(1, -1)
    if (tag === checksum) return true
  }
  return false
}

/**
 * The GET handler (Fastify derives HEAD from it). `current()` is set in `onReady`, before any request;
 * it stays undefined only when building failed, and `app.inject()` still answers after a rejected `ready()`.
 */
export function manifestHandler (current: () => PreparedResponse | undefined): RouteHandlerMethod {
  return function serveManifest (request: FastifyRequest, reply: FastifyReply) {
    const prepared = current()
    if (prepared === undefined) {
      return reply.send(new FST_SVC_NOT_READY('the app did not start: ready() rejected, and its error says why.'))
    }
    const ifNoneMatch = request.headers['if-none-match']
    // The ETag sent back verbatim is the usual case: one comparison, no parsing, no allocation.
    if (ifNoneMatch !== undefined && (ifNoneMatch === prepared.etag || matchesChecksum(ifNoneMatch, prepared.checksum))) {
      return reply.code(304).headers(prepared.notModifiedHeaders).send()
    }
    return reply.headers(prepared.headers).send(prepared.body)
  }
}
