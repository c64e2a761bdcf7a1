import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { buildManifest } from './assemble/manifest.js'
import { Catalog } from './catalog.js'
import { RouteCollector } from './collect/collector.js'
import { Declarations } from './collect/declarations.js'
import type { SvcRouteOptions } from './collect/svc-option.js'
import { UnseenRoutes } from './collect/unseen-routes.js'
import { BearerAuth, CREDENTIAL_PROPERTY } from './http/auth.js'
import { Dispatcher } from './http/dispatch.js'
import type { CatalogListener, EndpointContext, RegisterEndpoint } from './http/endpoint.js'
import { registerInvokeRoutes } from './http/invoke.js'
import { EndpointLinks } from './http/links.js'
import { prepareResponse, registerManifestRoutes, type PreparedResponse } from './http/manifest.js'
import { McpEndpoint } from './http/mcp.js'
import { registerOAuthMetadata } from './http/oauth-metadata.js'
import { OriginPolicy } from './http/origins.js'
import { registerStreams } from './http/streams.js'
import { registerUiRoutes } from './http/ui.js'
import { DEFAULT_MAX_RESULT_BYTES, readOptions } from './options.js'
import type { SvcManifestOptions } from './option-types.js'
import { together } from './problems.js'
import { RealtimeOnDemand } from './realtime/on-demand.js'
import { svcRegistry, type SvcRegistry } from './registry.js'
import type { Schema } from './schema/schema.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The manifest registry of fastify-svc-manifest. */
    svc: SvcRegistry
  }
  interface FastifyRequest {
    /** What `auth.verify` (or `request.jwtVerify()`) returned, on commands with `auth`; `null` when no credential was sent. */
    svcCredential?: unknown
  }
  interface RouteShorthandOptions {
    /** Describes this route as a command of the service manifest. */
    svc?: SvcRouteOptions | true
  }
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
  const realtime = new RealtimeOnDemand(() => ({
    settings: config.realtime,
    serviceName: config.name,
    authConfigured: config.auth !== undefined,
    declaresRealtime: declarations.declaresRealtime,
    events: declarations.events,
    channels: declarations.channels,
    sharedSchemas: schemasForPayloads(fastify, declarations),
    log: fastify.log
  }))
  const catalogListeners: CatalogListener[] = []
  const context: EndpointContext = {
    links: new EndpointLinks(),
    origins: new OriginPolicy(config),
    auth,
    dispatcher: new Dispatcher(fastify, () => catalog, config.invoke === false ? DEFAULT_MAX_RESULT_BYTES : config.invoke.maxResultBytes),
    declarations,
    prepared: () => prepared,
    realtime,
    onCatalog: (listener) => { catalogListeners.push(listener) }
  }

  const recordRoute = unseenRoutes.onRoute
  if (recordRoute !== undefined) fastify.addHook('onRoute', recordRoute)
  fastify.addHook('onRoute', collector.onRoute)
  fastify.decorate('svc', svcRegistry(declarations, () => catalog, realtime))
  fastify.decorateRequest(CREDENTIAL_PROPERTY, null)
  for (const register of ENDPOINTS) await register(fastify, config, context)

  fastify.addHook('onReady', async function buildOnReady () {
    // Every problem of every kind, in one rejection: one boot shows an app's whole to-do list.
    const problems = [...collector.errors]
    const attempt = <T>(step: () => T): T | undefined => {
      try {
        return step()
      } catch (error) {
        problems.push(error as Error)
      }
    }
    attempt(() => unseenRoutes.report(fastify))
    attempt(() => auth.resolve(fastify))
    problems.push(...collector.checkExamples())
    const built = attempt(() => buildManifest(config, declarations, collector.commands, new Date(), fastify.getSchemas()))
    if (built === undefined || problems.length > 0) throw together(problems)
    const { manifest, routes } = built
    prepared = prepareResponse(manifest, config.maxAge, context.links.header())
    catalog = new Catalog(prepared.body, prepared.checksum, routes)
    for (const listener of catalogListeners) listener(catalog, (id) => fastify.getSchema(id) as Schema | undefined)
    declarations.close()
    collector.release()
    // Handed out once started: until then emit() and publish() say the app is not ready.
    if (declarations.declaresRealtime) await realtime.start()
  })
}

/** The plugin's endpoints, in the order they name themselves in the manifest's `Link` header. */
const ENDPOINTS: RegisterEndpoint[] = [
  registerManifestRoutes,
  registerInvokeRoutes,
  registerStreams,
  McpEndpoint.register,
  registerOAuthMetadata,
  registerUiRoutes
]

/** What an event's data schema may `$ref`: the app's shared schemas, and registered types under their own `$id`. */
function schemasForPayloads (fastify: FastifyInstance, declarations: Declarations): object[] {
  const withOwnId = [...declarations.types.values()].filter((schema) => typeof (schema as { $id?: unknown }).$id === 'string')
  return [...Object.values(fastify.getSchemas()) as object[], ...withOwnId]
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
export type { SvcExample, SvcHints, SvcRouteOptions } from './collect/svc-option.js'
export type {
  Manifest, ManifestAuth, ManifestChannel, ManifestCommand, ManifestEvent, ManifestExample, ManifestField, ManifestHints,
  ManifestParam, ManifestProperty, ManifestType, ManifestTypeRef, ManifestV05, ManifestV1, SvcLayout
} from './manifest/types.js'
export type {
  JsonSchema, SvcAuthOptions, SvcChannelAuthorize, SvcChannelOptions, SvcEventOptions, SvcManifestOptions, SvcNamesOptions, SvcRealtimeOptions, SvcVerify
} from './option-types.js'
export type { EmitOptions } from './realtime/realtime.js'
export type { SvcRegistry } from './registry.js'
