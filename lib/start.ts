import type { FastifyInstance } from 'fastify'
import { buildManifest } from './assemble/manifest.js'
import { Catalog, hiddenCommands } from './catalog.js'
import type { RouteCollector } from './collect/collector.js'
import type { Declarations } from './collect/declarations.js'
import type { UnseenRoutes } from './collect/unseen-routes.js'
import type { BearerAuth } from './http/auth.js'
import type { EndpointLinks } from './http/links.js'
import { ManifestViews } from './http/audiences.js'
import type { PreparedResponse } from './http/prepared.js'
import type { Config } from './options.js'
import { together } from './problems.js'
import type { RealtimeOnDemand } from './realtime/on-demand.js'
import type { Schema } from './schema/schema.js'

/** What `ready()` builds, which the lifecycle hands out: the served response, the catalog, the app's schemas. */
export interface Built {
  /** The public view's response. */
  prepared: PreparedResponse
  /** The manifest per audience: the public view, and each credential's (hidden commands). */
  views: ManifestViews
  catalog: Catalog
  /** A shared schema of the app by `$id`, as the routes resolve it. */
  resolve: (id: string) => Schema | undefined
}

/** What `ready()` reads: the stages the plugin set up while the app registered. */
export interface StartParts {
  config: Config
  unseenRoutes: UnseenRoutes
  auth: BearerAuth
  collector: RouteCollector
  declarations: Declarations
  links: EndpointLinks
  realtime: RealtimeOnDemand
}

/**
 * What the plugin's `onReady` does, in order: every problem of every kind in one rejection (one boot
 * shows an app's whole to-do list), then the manifest, its response and the catalog, handed to `hand`
 * (the lifecycle, which passes them on), then the realtime hub when the app declares an event or a
 * channel. Until it has started, emit() and publish() say the app is not ready.
 */
export async function start (fastify: FastifyInstance, parts: StartParts, hand: (built: Built) => void): Promise<void> {
  const { config, unseenRoutes, auth, collector, declarations, links, realtime } = parts
  const problems = [...collector.errors]
  const attempt = <T>(step: () => T): T | undefined => {
    try {
      return step()
    } catch (error) {
      problems.push(error as Error)
    }
  }
  attempt(() => unseenRoutes.report(fastify))
  warnOfDerivedDescriptions(fastify, collector.derivedDescriptions())
  attempt(() => auth.resolve(fastify))
  problems.push(...collector.checkExamples())
  const built = attempt(() => buildManifest(config, declarations, collector.commands, new Date(), fastify.getSchemas()))
  if (built === undefined || problems.length > 0) throw together(problems)
  const views = new ManifestViews(built.manifest, hiddenCommands(built.routes), config.maxAge, links.header())
  const catalog = new Catalog(views.completeBody, built.manifest.checksum, built.routes, views.public.body, views.hidden)
  hand({ prepared: views.public, views, catalog, resolve: (id) => fastify.getSchema(id) as Schema | undefined })
  collector.release()
  if (declarations.declaresRealtime) await realtime.start()
}

/**
 * One warning for every route whose description is its method and URL: an agent learns little from
 * `GET /roles/:id`, so the app is told which to describe, all at once (never an error unless
 * `requireDescriptions` asks for one, then each route is a problem of `ready()`).
 */
function warnOfDerivedDescriptions (fastify: FastifyInstance, routes: string[]): void {
  if (routes.length === 0) return
  const [count, has, each] = routes.length === 1 ? ['1 route has', 'its', 'it is'] : [`${routes.length} routes have`, 'their', 'each is']
  fastify.log.warn({ derivedDescriptions: routes }, `${count} no description of ${has} own, so ${each} described by method and URL ` +
    `(such as "${routes[0]}"), which tells an agent little: ${routes.join('; ')}. Set svc.description, or the route schema's ` +
    'description or summary; requireDescriptions: true makes a missing description an error.')
}
