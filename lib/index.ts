import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { buildManifest } from './assemble/manifest.js'
import { togetherByKind } from './problems.js'
import type { Schema } from './schema/schema.js'
import { Catalog } from './catalog.js'
import { RouteCollector } from './collect/collector.js'
import { Declarations } from './collect/declarations.js'
import type { SvcRouteOptions } from './collect/svc-option.js'
import { UnseenRoutes } from './collect/unseen-routes.js'
import { FST_SVC_NOT_READY } from './errors.js'
import { BearerAuth, CREDENTIAL_PROPERTY } from './http/auth.js'
import { Dispatcher } from './http/dispatch.js'
import { registerInvokeRoutes } from './http/invoke.js'
import { EndpointLinks } from './http/links.js'
import { manifestHandler, prepareResponse, withoutCookies, type PreparedResponse } from './http/manifest.js'
import { McpEndpoint } from './http/mcp.js'
import { OriginPolicy } from './http/origins.js'
import { registerStreams } from './http/streams.js'
import type { Manifest } from './manifest/types.js'
import { readOptions, type JsonSchema, type SvcChannelOptions, type SvcEventOptions, type SvcManifestOptions } from './options.js'
import type { EmitOptions, Realtime } from './realtime/realtime.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The manifest registry of fastify-svc-manifest. */
    svc: SvcRegistry
  }
  interface FastifyRequest {
    /** What `auth.verify` (or `request.jwtVerify()`) returned, on commands with `auth: 'required'`. */
    svcCredential?: unknown
  }
  interface RouteShorthandOptions {
    /** Describes this route as a command of the service manifest. */
    svc?: SvcRouteOptions
  }
}

/** The `app.svc` decorator. */
export interface SvcRegistry {
  /** Registers a reusable type. Before `ready()` only. */
  type (name: string, schema: JsonSchema): void
  /** Registers an event. Before `ready()` only. */
  event (name: string, options: SvcEventOptions): void
  /** Registers a live channel (layout `0.5.0`). Before `ready()` only. */
  channel (name: string, options: SvcChannelOptions): void
  /** The generated manifest, frozen. Throws before `ready()`. */
  readonly manifest: Readonly<Manifest>
  /** The manifest's checksum (also its ETag). Throws before `ready()`. */
  readonly checksum: string
  /**
   * Sends a declared event to its subscribers on every instance; with `to`, only to the subscribers whose
   * subject is `to`. After `ready()`. Throws a coded error for an undeclared event or a payload that does
   * not satisfy its data schema, and then delivers nothing. Delivery is asynchronous; a broker failure is
   * logged, never thrown.
   */
  emit (event: string, data?: unknown, options?: EmitOptions): void
  /**
   * Replaces the state of one key of a channel (layout 0.5.0) and sends it to its watchers; resolves to
   * the new version (1 after the first publish). After `ready()`. Mistakes in the call are thrown at once;
   * the promise rejects only when the broker fails.
   */
  publish (channel: string, key: string, state: unknown): Promise<number>
}

const plugin: FastifyPluginAsync<SvcManifestOptions> = async (fastify, options) => {
  const config = readOptions(options)
  // Before any route of the plugin's own: what the server has now, the plugin will never see.
  const unseenRoutes = new UnseenRoutes(fastify, config.unseenRoutes)
  const declarations = new Declarations(config, (name, schema) => shareTypeSchema(fastify, name, schema))
  const auth = new BearerAuth(config)
  const collector = new RouteCollector(declarations, (routeOptions, command) => auth.attach(routeOptions, command))
  let catalog: Catalog | undefined
  let prepared: PreparedResponse | undefined

  /** Loaded and started by ready(): the realtime code costs an app's start, not the plugin's import. */
  let realtime: Realtime | undefined
  const started = (call: string): Realtime => {
    if (realtime === undefined) throw new FST_SVC_NOT_READY(`${call} is available after \`await app.ready()\`.`)
    return realtime
  }

  const recordRoute = unseenRoutes.onRoute
  if (recordRoute !== undefined) fastify.addHook('onRoute', recordRoute)
  fastify.addHook('onRoute', collector.onRoute)
  fastify.decorate('svc', svcRegistry(declarations, () => catalog, started))
  fastify.decorateRequest(CREDENTIAL_PROPERTY, null)
  // HEAD is a route of its own, also when the app turned automatic HEAD routes off.
  const manifestRoute = { ...config.routeLog, exposeHeadRoute: false, onSend: withoutCookies }
  const serveManifest = manifestHandler(() => prepared)
  fastify.get(config.path, manifestRoute, serveManifest)
  fastify.head(config.path, manifestRoute, serveManifest)
  // Each endpoint of the plugin adds its entry to the manifest's Link header here.
  const links = new EndpointLinks()
  const dispatcher = new Dispatcher(fastify, () => catalog)
  const origins = new OriginPolicy(config)
  registerInvokeRoutes(fastify, config, dispatcher, origins, links)
  registerStreams(fastify, config, declarations, auth, origins, () => realtime, links)
  const mcp = await McpEndpoint.register(fastify, config, dispatcher, origins, links)

  fastify.addHook('onReady', async function buildOnReady () {
    unseenRoutes.report(fastify)
    if (collector.errors.length > 0) throw togetherByKind(collector.errors)
    auth.resolve(fastify)
    const { manifest, routes } = buildManifest(config, declarations, collector.commands)
    prepared = prepareResponse(manifest, config.maxAge, links.header())
    catalog = new Catalog(prepared.body, prepared.checksum, routes)
    mcp?.prepare(catalog, (id) => fastify.getSchema(id) as Schema | undefined)
    declarations.close()
    collector.release()
    const { Realtime } = await import('./realtime/realtime.js')
    const starting = new Realtime({
      settings: config.realtime,
      serviceName: config.name,
      authConfigured: config.auth !== undefined,
      events: declarations.events,
      channels: declarations.channels,
      log: fastify.log
    })
    await starting.start(schemasForPayloads(fastify, declarations))
    // Usable once started: until then emit() and publish() say the app is not ready.
    realtime = starting
  })
}

/** What an event's data schema may `$ref`: the app's shared schemas, and registered types under their own `$id`. */
function schemasForPayloads (fastify: FastifyInstance, declarations: Declarations): object[] {
  const withOwnId = [...declarations.types.values()].filter((schema) => typeof (schema as { $id?: unknown }).$id === 'string')
  return [...Object.values(fastify.getSchemas()) as object[], ...withOwnId]
}

function svcRegistry (declarations: Declarations, current: () => Catalog | undefined, realtime: (call: string) => Realtime): SvcRegistry {
  const ready = (): Catalog => {
    const catalog = current()
    if (catalog === undefined) throw new FST_SVC_NOT_READY('app.svc.manifest and app.svc.checksum are available after `await app.ready()`.')
    return catalog
  }
  return {
    type: (name, schema) => declarations.addType(name, schema),
    event: (name, options) => declarations.addEvent(name, options),
    channel: (name, options) => declarations.addChannel(name, options),
    get manifest () { return ready().manifest },
    get checksum () { return ready().checksum },
    emit: (event, data, options) => realtime('app.svc.emit()').emit(event, data, options),
    publish: (channel, key, state) => realtime('app.svc.publish()').publish(channel, key, state)
  }
}

/**
 * Adds a registered type as a shared schema under its name, so `Type.Ref('Product')` in `svc.params`
 * validates. A schema the app already added under that `$id` is left alone.
 */
function shareTypeSchema (fastify: FastifyInstance, name: string, schema: object): void {
  if (fastify.getSchema(name) === undefined) fastify.addSchema({ ...schema, $id: name })
}

/** The plugin. Register it before the routes it should describe. */
export const svcManifest = fp(plugin, { fastify: '5.x', name: 'fastify-svc-manifest' })
export default svcManifest

export { checksumOf } from './client/checksum.js'
export * from './errors.js'
export type { SvcHints, SvcRouteOptions } from './collect/svc-option.js'
export type {
  Manifest, ManifestAuth, ManifestChannel, ManifestCommand, ManifestEvent, ManifestHints, ManifestParam, ManifestType,
  ManifestTypeRef, ManifestV05, ManifestV1, SvcLayout
} from './manifest/types.js'
export type {
  JsonSchema, SvcAuthOptions, SvcChannelAuthorize, SvcChannelOptions, SvcEventOptions, SvcManifestOptions, SvcRealtimeOptions, SvcVerify
} from './options.js'
export type { EmitOptions } from './realtime/realtime.js'
