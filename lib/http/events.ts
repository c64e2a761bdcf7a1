import type { FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_INVALID_SUBSCRIPTION } from '../errors.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import type { Realtime } from '../realtime/realtime.js'
import type { WatchRule } from './auth.js'
import type { AddPluginRoute, PluginRoute } from './endpoint.js'

export interface StreamRouteDependencies {
  /** `basePath` option: the stream routes live under it. */
  basePath: string
  /** The started hub: already there when the app declares an event or a channel. */
  realtime: () => Promise<Realtime>
  /** With `auth`, its hook runs on every stream request (after the origin check); and who may watch a key. */
  watch: WatchRule
  /** Reads the credential the hook left on the request. */
  credentialOf: (request: FastifyRequest) => unknown
}

/**
 * What the stream routes share: `GET`, acting (the origin check first), then the plugin's auth hook when it
 * has auth, and no HEAD twin (a stream has no head).
 */
export function streamRoute (deps: StreamRouteDependencies): Pick<PluginRoute, 'method' | 'acts' | 'onRequest' | 'exposeHeadRoute'> {
  return { method: 'GET', acts: true, onRequest: deps.watch.authenticate, exposeHeadRoute: false }
}

/**
 * `GET {basePath}/events?events=a,b`: a Server-Sent Events stream of the declared events asked for
 * (all by default). With `auth`, the subscriber authenticates exactly as for a command with
 * `auth: 'required'`, and also receives the events addressed to its subject.
 */
export function registerEventsRoute (route: AddPluginRoute, events: ReadonlyMap<string, unknown>, deps: StreamRouteDependencies): void {
  route({
    ...streamRoute(deps),
    url: `${deps.basePath}/events`,
    rel: LINK_RELATIONS.events,
    handler: async function svcEventsStream (request: FastifyRequest, reply: FastifyReply) {
      const names = requestedEvents((request.query as Record<string, unknown>).events, events)
      const { authenticate, subjectOf } = deps.watch
      const subject = authenticate === undefined ? undefined : subjectOf(deps.credentialOf(request))
      const realtime = await deps.realtime()
      realtime.openEvents(request, reply, names, subject, request.headers['last-event-id'])
    }
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
