import type { FastifyInstance, FastifySchema, HTTPMethods, onRequestAsyncHookHandler, RouteHandlerMethod, RouteOptions, RouteShorthandOptions } from 'fastify'
import type { Catalog } from '../catalog.js'
import type { Declarations } from '../collect/declarations.js'
import type { Config } from '../options.js'
import type { RealtimeOnDemand } from '../realtime/on-demand.js'
import { hasParams, parseRouteUrl } from '../route-url.js'
import type { Schema } from '../schema/schema.js'
import type { ManifestViews } from './audiences.js'
import type { BearerAuth } from './auth.js'
import type { Dispatcher } from './dispatch.js'
import type { EndpointLinks } from './links.js'
import type { PreparedResponse } from './prepared.js'
import type { OriginPolicy } from './origins.js'

/** Called once `ready()` has built the catalog; a throw rejects `ready()`. */
export type CatalogListener = (catalog: Catalog, resolve: (id: string) => Schema | undefined) => void

/** What the plugin's endpoints share: each registers itself from the config and this, the same way. */
export interface EndpointContext {
  /** The manifest's `Link` header: `pluginRoutes` adds a route's relation here. */
  readonly links: EndpointLinks
  /** `pluginRoutes` puts its `onRequest` hook first on every route that acts. */
  readonly origins: OriginPolicy
  /** Bearer auth, and the one watch rule of channels (`auth.watchRule`) for the streams and MCP. */
  readonly auth: BearerAuth
  /**
   * Runs the calls of commands (execute, pipeline, MCP). Its code is loaded, and the dispatcher made, on first
   * use: an app that never calls a command through them does not compile it when it starts.
   */
  readonly dispatcher: () => Promise<Dispatcher>
  readonly declarations: Declarations
  /** The public view's response. Undefined until `ready()` has built the manifest, and when it failed. */
  readonly prepared: () => PreparedResponse | undefined
  /** The manifest per audience (hidden commands); undefined when `prepared()` is. */
  readonly views: () => ManifestViews | undefined
  /** Started by `ready()` when the app declares an event or a channel, else by the first stream. */
  readonly realtime: RealtimeOnDemand
  /** Registers a listener for the catalog, once it is built. */
  readonly onCatalog: (listener: CatalogListener) => void
}

/** The one signature of the plugin's endpoints: manifest, execute + pipeline, streams, MCP, the page; each adds its routes with `pluginRoutes`. */
export type RegisterEndpoint = (fastify: FastifyInstance, config: Config, context: EndpointContext) => void | Promise<void>

/** What the plugin reads of its config to add a route: the `logLevel` and `logSerializers` it was registered with. */
export interface RouteLogConfig {
  routeLog: Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>
}

/** One route of the plugin's own, as its endpoint describes it. */
export interface PluginRoute {
  method: HTTPMethods | HTTPMethods[]
  url: string
  /**
   * The route acts (calls commands, opens streams, serves the page that does): the origin check
   * (docs/security.md) runs first on it, before any other hook.
   */
  acts: boolean
  /** The relation that names the route in the manifest's `Link` header: its path, up to its first param. */
  rel?: string
  handler: RouteHandlerMethod
  /** Runs after the origin check: the streams' bearer auth. */
  onRequest?: onRequestAsyncHookHandler
  errorHandler?: RouteOptions['errorHandler']
  onSend?: RouteOptions['onSend']
  exposeHeadRoute?: boolean
}

/** Adds one route of the plugin's own; each endpoint gets one from `pluginRoutes`. */
export type AddPluginRoute = (route: PluginRoute) => void

/** @fastify/swagger leaves routes with `hide` out of an app's OpenAPI document (its own augmentation of FastifySchema). */
const HIDDEN = { hide: true } as FastifySchema

/**
 * The one way the plugin adds a route of its own: with the log options it was registered with, hidden from
 * an app's OpenAPI document, the origin check first on a route that acts, and, with `rel`, named in the
 * manifest's `Link` header in the order the routes are added.
 */
export function pluginRoutes (fastify: FastifyInstance, config: RouteLogConfig, { origins, links }: Pick<EndpointContext, 'origins' | 'links'>): AddPluginRoute {
  return function pluginRoute ({ acts, rel, onRequest, ...route }) {
    const hooks = acts ? (onRequest === undefined ? origins.onRequest : [origins.onRequest, onRequest]) : onRequest
    const options = { ...config.routeLog, ...route, schema: HIDDEN } as RouteOptions
    if (hooks !== undefined) options.onRequest = hooks as RouteOptions['onRequest']
    fastify.route(options)
    if (rel !== undefined) links.add(linkPath(route.url), rel)
  }
}

/** A route's path as its link names it: the whole path, or the static part before its first param without its last `/`. */
function linkPath (url: string): string {
  if (!hasParams(url)) return url
  // The plugin's paths are checked options, of no param: its routes start with static text.
  const first = parseRouteUrl(url)[0] as { text: string }
  return first.text.replace(/\/$/, '')
}
