import { createRequire } from 'node:module'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type fastifyPlugin from 'fastify-plugin'
import { RouteCollector } from './collect/collector.js'
import { Declarations, shareType } from './collect/declarations.js'
import type { SvcRouteOptions } from './collect/svc-option.js'
import { UnseenRoutes } from './collect/unseen-routes.js'
import { Lifecycle } from './lifecycle.js'
import { BearerAuth, CREDENTIAL_PROPERTY } from './http/auth.js'
import { LiveCalls, svcOf, type SvcRequest } from './http/call.js'
import type { Dispatcher } from './http/dispatch.js'
import type { EndpointContext, RegisterEndpoint } from './http/endpoint.js'
import { registerInvokeRoutes } from './http/invoke.js'
import { EndpointLinks } from './http/links.js'
import { registerManifestRoutes } from './http/manifest.js'
import { registerOAuthMetadata } from './http/oauth-metadata.js'
import { OriginPolicy } from './http/origins.js'
import { registerStreams } from './http/streams.js'
import { DEFAULT_INVOKE_TIMEOUT, DEFAULT_MAX_RESULT_BYTES, readOptions } from './options.js'
import type { SvcManifestOptions } from './option-types.js'
import { RealtimeOnDemand } from './realtime/on-demand.js'
import { svcRegistry, type SvcRegistry } from './registry.js'
import { start, type Built } from './start.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The manifest registry of fastify-svc-manifest. */
    svc: SvcRegistry
  }
  interface FastifyRequest {
    /** What `auth.verify` (or `request.jwtVerify()`) returned, on commands with `auth`; `null` when no credential was sent. */
    svcCredential?: unknown
    /** The call this request serves: `signal` (aborts when the answer is no longer wanted) and `progress()`. */
    readonly svc: SvcRequest
  }
  interface RouteShorthandOptions {
    /** Describes this route as a command of the service manifest. */
    svc?: SvcRouteOptions | true
  }
}

const plugin: FastifyPluginAsync<SvcManifestOptions> = async (fastify, options) => {
  const config = readOptions(options)
  // First: its preClose runs before every other hook of the plugin.
  const lifecycle = new Lifecycle<Built>(fastify)
  // Before any route of the plugin's own: what the server has now, the plugin will never see.
  const unseenRoutes = new UnseenRoutes(fastify, config.unseenRoutes)
  const declarations = new Declarations(config, shareType(fastify), lifecycle)
  const auth = new BearerAuth(config)
  const collector = new RouteCollector(declarations, (routeOptions, command) => auth.attach(routeOptions, command), config.requireDescriptions)
  const realtime = new RealtimeOnDemand(lifecycle, () => ({
    settings: config.realtime,
    serviceName: config.name,
    authConfigured: config.auth !== undefined,
    declaresRealtime: declarations.declaresRealtime,
    events: declarations.events,
    channels: declarations.channels,
    sharedSchemas: declarations.payloadSchemas(fastify.getSchemas()),
    log: fastify.log
  }))
  // The calls still running (execute, pipeline, MCP, and direct requests whose route read its signal): the
  // app closing cancels them, right after the lifecycle's own preClose.
  const liveCalls = new LiveCalls()
  fastify.addHook('preClose', (done) => {
    liveCalls.abortAll()
    done()
  })
  let dispatcher: Promise<Dispatcher> | undefined
  const context: EndpointContext = {
    links: new EndpointLinks(),
    origins: new OriginPolicy(config),
    auth,
    dispatcher: () => {
      dispatcher ??= import('./http/dispatch.js').then(({ Dispatcher }) => new Dispatcher(
        fastify,
        () => lifecycle.built?.catalog,
        config.invoke === false ? DEFAULT_MAX_RESULT_BYTES : config.invoke.maxResultBytes,
        lifecycle,
        config.invoke === false ? DEFAULT_INVOKE_TIMEOUT : config.invoke.timeout,
        liveCalls,
        auth
      ))
      return dispatcher
    },
    declarations,
    prepared: () => lifecycle.built?.prepared,
    views: () => lifecycle.built?.views,
    realtime,
    onCatalog: (listener) => { lifecycle.onReady(({ catalog, resolve }) => listener(catalog, resolve)) }
  }

  const recordRoute = unseenRoutes.onRoute
  if (recordRoute !== undefined) fastify.addHook('onRoute', recordRoute)
  fastify.addHook('onRoute', collector.onRoute)
  fastify.decorate('svc', svcRegistry(declarations, lifecycle, realtime))
  fastify.decorateRequest(CREDENTIAL_PROPERTY, null)
  // A getter: made on first use, so a request whose route never reads it costs nothing.
  fastify.decorateRequest('svc', { getter (this: FastifyRequest) { return svcOf(this.raw, liveCalls) } })
  for (const register of ENDPOINTS) await register(fastify, config, context)
  // Last: its onClose runs before the endpoints' own.
  lifecycle.attach(fastify, async (hand) => {
    await start(fastify, { config, unseenRoutes, auth, collector, declarations, links: context.links, realtime }, hand)
  })
}

/**
 * The plugin's endpoints, in the order they name themselves in the manifest's `Link` header. Those of a
 * feature that is off unless the app turns it on (MCP, the page, discovery) are chunks of the build, loaded
 * when it is on: an app without them does not compile their code when it imports the plugin.
 */
const ENDPOINTS: RegisterEndpoint[] = [
  registerManifestRoutes,
  registerInvokeRoutes,
  registerStreams,
  async (fastify, config, context) => {
    if (config.mcp === false) return
    const { McpEndpoint } = await import('./http/mcp.js')
    await McpEndpoint.register(fastify, config, config.mcp, context)
  },
  registerOAuthMetadata,
  async (fastify, config, context) => {
    if (config.ui === false) return
    const { registerUiRoutes } = await import('./http/ui.js')
    await registerUiRoutes(fastify, config, context)
  },
  async (fastify, config, context) => {
    if (!config.discovery) return
    const { registerDiscovery } = await import('./http/discovery.js')
    registerDiscovery(fastify, config, context)
  }
]

/**
 * fastify-plugin is CommonJS: required rather than imported, it is loaded without the ES module loader's
 * parse of its source for named exports and the module it wraps it in (lib/errors.ts does the same).
 */
const fp = createRequire(import.meta.url)('fastify-plugin') as typeof fastifyPlugin

/** The plugin. Register it before the routes it should describe. */
export const svcManifest = fp(plugin, { fastify: '5.x', name: 'fastify-svc-manifest' })
export default svcManifest

export { checksumOf } from './client/checksum.js'
export * from './errors.js'
export type { SvcExample, SvcHints, SvcPagination, SvcRateLimit, SvcRouteOptions } from './collect/svc-option.js'
export type {
  Manifest, ManifestAuth, ManifestChannel, ManifestCommand, ManifestEvent, ManifestExample, ManifestField, ManifestHints,
  ManifestParam, ManifestProperty, ManifestType, ManifestTypeRef, ManifestV05, ManifestV1, SvcLayout
} from './manifest/types.js'
export type {
  JsonSchema, SvcAuthOptions, SvcBroker, SvcBrokerMessage, SvcChannelAuthorize, SvcChannelOptions, SvcEventOptions, SvcManifestOptions, SvcNamesOptions, SvcRealtimeOptions, SvcVerify
} from './option-types.js'
export type { SvcRequest } from './http/call.js'
export type { EmitOptions } from './realtime/realtime.js'
export type { SvcRegistry } from './registry.js'
