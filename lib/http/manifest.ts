import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { FST_SVC_NOT_READY } from '../errors.js'
import { audienceOf, VARY, type ManifestViews } from './audiences.js'
import type { BearerAuth } from './auth.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'
import type { PreparedResponse } from './prepared.js'

export interface ManifestConfig extends RouteLogConfig {
  path: string
}

/**
 * `GET` and `HEAD {path}`: the manifest, public. HEAD is a route of its own, also when the app turned
 * automatic HEAD routes off.
 */
export function registerManifestRoutes (fastify: FastifyInstance, config: ManifestConfig, context: EndpointContext): void {
  const route = pluginRoutes(fastify, config, context)
  const handler = manifestHandler(context.prepared, context.views, context.auth)
  for (const method of ['GET', 'HEAD'] as const) route({ method, url: config.path, acts: false, exposeHeadRoute: false, onSend: withoutCookies, handler })
}

/**
 * True when an `If-None-Match` field value names this checksum (RFC 9110 §13.1.2): `*` as the whole
 * value, or a comma-separated list of entity-tags, each `"…"` or `W/"…"`. An entity-tag is read up to its
 * closing quote, so a comma inside it does not split it, and a `*` among other entries matches nothing.
 * Entries without quotes are read up to the next comma, so a client may send the bare checksum copied from
 * the body. A malformed field (an unterminated quote, text after an entity-tag) matches nothing.
 */
export function matchesChecksum (ifNoneMatch: string, checksum: string): boolean {
  const value = ifNoneMatch.trim()
  if (value === '*') return true
  let matched = false
  let index = 0
  while (index < value.length) {
    index = afterSpaces(value, index)
    if (value[index] === ',') {
      index++
      continue
    }
    if (value.startsWith('W/', index)) index += 2
    let tag: string
    if (value[index] === '"') {
      const close = value.indexOf('"', index + 1)
      if (close === -1) return false
      tag = value.slice(index + 1, close)
      index = afterSpaces(value, close + 1)
      if (index < value.length && value[index] !== ',') return false
    } else {
      const comma = value.indexOf(',', index)
      const end = comma === -1 ? value.length : comma
      tag = value.slice(index, end).trim()
      if (/["\s]/.test(tag)) return false
      index = end
    }
    if (tag === checksum) matched = true
  }
  return matched
}

function afterSpaces (value: string, index: number): number {
  while (value[index] === ' ' || value[index] === '\t') index++
  return index
}

/**
 * The handler of GET and HEAD. `current()` (the public view) is set in `onReady`, before any request; it
 * stays undefined only when building failed, and `app.inject()` still answers after a rejected `ready()`.
 * HEAD is a route of its own rather than Fastify's automatic twin, whose hook writes `content-length: 0` on
 * a 304. With hidden commands (`views().audiences`), a credential of the scheme of `auth` is checked as a
 * command's is and picks its view; a refused one is the command's 401.
 */
export function manifestHandler (current: () => PreparedResponse | undefined, views: () => ManifestViews | undefined, auth: BearerAuth): RouteHandlerMethod {
  return function serveManifest (request: FastifyRequest, reply: FastifyReply) {
    const prepared = current()
    if (prepared === undefined) return notStarted(reply)
    const audiences = views() as ManifestViews
    if (audiences.audiences && auth.schemeSent(request)) return serveView(request, reply, audiences, auth)
    return serve(request, reply, prepared)
  }
}

/** The handler of another precomputed public document (the discovery documents): 304, or its bytes. */
export function documentHandler (current: () => PreparedResponse | undefined): RouteHandlerMethod {
  return function serveDocument (request: FastifyRequest, reply: FastifyReply) {
    const prepared = current()
    if (prepared === undefined) return notStarted(reply)
    return serve(request, reply, prepared)
  }
}

function notStarted (reply: FastifyReply): FastifyReply {
  return reply.send(new FST_SVC_NOT_READY('the app did not start: ready() rejected, and its error says why.'))
}

/** The view of the request's credential, or the 401 of a refused one. */
async function serveView (request: FastifyRequest, reply: FastifyReply, views: ManifestViews, auth: BearerAuth): Promise<FastifyReply> {
  const audience = await audienceOf(auth, request, views.hidden)
  if (audience === false) return auth.refuseToken(reply.header('vary', VARY))
  return serve(request, reply, views.viewOf(audience))
}

/** One prepared view: 304 when the client holds it, else the body (none for HEAD). */
function serve (request: FastifyRequest, reply: FastifyReply, prepared: PreparedResponse): FastifyReply {
  const ifNoneMatch = request.headers['if-none-match']
  // The ETag sent back verbatim is the usual case: one comparison, no parsing, no allocation.
  if (ifNoneMatch !== undefined && (ifNoneMatch === prepared.etag || matchesChecksum(ifNoneMatch, prepared.checksum))) {
    return reply.code(304).headers(prepared.notModifiedHeaders).send()
  }
  if (request.method === 'HEAD') return reply.headers(prepared.headHeaders).send()
  return reply.headers(prepared.headers).send(prepared.body)
}

/**
 * The manifest is public and cacheable by shared caches: a cookie that an app-wide hook (a session plugin)
 * sets on every response must not reach it. Runs after the app's own `onSend` hooks, which come first.
 */
export function withoutCookies (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  // Fastify's removeHeader removes it from the raw response too; most responses have none to remove.
  if (reply.hasHeader('set-cookie')) reply.removeHeader('set-cookie')
  done(null, payload)
}
