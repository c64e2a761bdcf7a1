import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { BearerAuth, CREDENTIAL_PROPERTY } from './auth.js'
import { buildManifest } from './build.js'
import { RouteCollector } from './collect.js'
import { readOptions } from './options.js'
import { Registry } from './registry.js'
import { manifestHandler, prepareResponse, type PreparedResponse } from './serve.js'
import type { SvcManifestOptions, SvcRegistry, SvcRouteOptions } from './types.js'

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

const plugin: FastifyPluginAsync<SvcManifestOptions> = async (fastify, options) => {
  const config = readOptions(options)
  const registry = new Registry(config.layout, (name, schema) => shareTypeSchema(fastify, name, schema))
  registerDeclared(registry, options)

  const auth = new BearerAuth(config)
  const collector = new RouteCollector(registry, (routeOptions, command) => auth.attach(routeOptions, command))
  fastify.addHook('onRoute', collector.onRoute)
  fastify.decorate('svc', registry.api())
  fastify.decorateRequest(CREDENTIAL_PROPERTY, null)

  let prepared: PreparedResponse | undefined
  // HEAD is part of the contract even when the app turned automatic HEAD routes off.
  fastify.get(config.path, { ...config.routeLog, exposeHeadRoute: true }, manifestHandler(() => prepared))

  fastify.addHook('onReady', async function buildOnReady () {
    if (collector.errors.length > 0) throw collector.errors[0]
    auth.resolve(fastify)
    const manifest = buildManifest(config, registry, collector.commands)
    prepared = prepareResponse(manifest, config.maxAge)
    registry.seal(prepared)
    collector.release()
  })
}

function registerDeclared (registry: Registry, options: SvcManifestOptions): void {
  for (const [name, schema] of Object.entries(options.types ?? {})) registry.addType(name, schema)
  for (const [name, event] of Object.entries(options.events ?? {})) registry.addEvent(name, event)
  for (const [name, channel] of Object.entries(options.channels ?? {})) registry.addChannel(name, channel)
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

export { checksumOf } from './checksum.js'
export * from './errors.js'
export * from './manifest-schema.js'
export { matchesChecksum } from './serve.js'
export type * from './types.js'
