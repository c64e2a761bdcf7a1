import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler, RouteShorthandOptions } from 'fastify'
import { FST_SVC_INVALID_SUBSCRIPTION } from '../errors.js'
import type { Realtime } from '../realtime/realtime.js'
import type { SubjectOf } from '../realtime/addressing.js'

export interface StreamRouteDependencies {
  /** `basePath` option: the stream routes live under it. */
  basePath: string
  /** The started hub: already there when the app declares an event or a channel. */
  realtime: () => Promise<Realtime>
  /** The origin and host check (docs/security.md), first on every stream request. */
  originCheck: onRequestHookHandler
  /** The bearer-auth `onRequest` hook of commands with `auth: 'required'`, when the plugin has `auth`. */
  authenticate?: onRequestAsyncHookHandler
  /** Reads the credential the hook left on the request. */
  credentialOf: (request: FastifyRequest) => unknown
  subjectOf: SubjectOf
  /** `logLevel` / `logSerializers` of the plugin's register options. */
  routeLog: Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>
}

/**
 * The options of a stream route: the origin check, then the plugin's auth hook when it has auth, and no
 * HEAD twin (a stream has no head).
 */
export function streamRouteOptions (deps: StreamRouteDependencies): RouteShorthandOptions {
  const onRequest = deps.authenticate === undefined ? deps.originCheck : [deps.originCheck, deps.authenticate]
  return { ...deps.routeLog, exposeHeadRoute: false, onRequest: onRequest as RouteShorthandOptions['onRequest'], schema: { hide: true } as RouteShorthandOptions['schema'] }
}

/**
 * `GET {basePath}/events?events=a,b`: a Server-Sent Events stream of the declared events asked for
 * (all by default). With `auth`, the subscriber authenticates exactly as for a command with
 * `auth: 'required'`, and also receives the events addressed to its subject.
 */
export function registerEventsRoute (fastify: FastifyInstance, events: ReadonlyMap<string, unknown>, deps: StreamRouteDependencies): void {
  fastify.get(`${deps.basePath}/events`, streamRouteOptions(deps), async function svcEventsStream (request: FastifyRequest, reply: FastifyReply) {
    const names = requestedEvents((request.query as Record<string, unknown>).events, events)
    const subject = deps.authenticate === undefined ? undefined : deps.subjectOf(deps.credentialOf(request))
    const realtime = await deps.realtime()
    realtime.openEvents(request, reply, names, subject, request.headers['last-event-id'])
  })
}

/** `?events=a,b` (or repeated `events=`), trimmed; none or empty means every declared event. */
function requestedEvents (query: unknown, declared: ReadonlyMap<string, unknown>): Set<string> {
  const values = query === undefined ? [] : ([] as unknown[]).concat(query)
  const names = values.flatMap((value) => String(value).split(',')).map((name) => name.trim()).filter((name) => name !== '')
  if (names.length === 0) return new Set(declared.keys())
  const unknown = names.filter((name) => !declared.has(name))
  if (unknown.length > 0) {
    const known = [...declared.keys()]
    throw new FST_SVC_INVALID_SUBSCRIPTION(`Unknown event ${unknown.map((name) => JSON.stringify(name)).join(', ')} in ?events. Declared events: ${known.length === 0 ? 'none' : known.join(', ')}.`)
  }
  return new Set(names)
}
