import type { FastifyInstance } from 'fastify'
import type { Catalog } from '../catalog.js'
import type { Declarations } from '../collect/declarations.js'
import type { Config } from '../options.js'
import type { RealtimeOnDemand } from '../realtime/on-demand.js'
import type { Schema } from '../schema/schema.js'
import type { BearerAuth } from './auth.js'
import type { Dispatcher } from './dispatch.js'
import type { EndpointLinks } from './links.js'
import type { PreparedResponse } from './manifest.js'
import type { OriginPolicy } from './origins.js'

/** Called once `ready()` has built the catalog; a throw rejects `ready()`. */
export type CatalogListener = (catalog: Catalog, resolve: (id: string) => Schema | undefined) => void

/** What the plugin's endpoints share: each registers itself from the config and this, the same way. */
export interface EndpointContext {
  /** Each endpoint names itself in the manifest's `Link` header here. */
  readonly links: EndpointLinks
  /** Every endpoint that acts puts its `onRequest` hook first. */
  readonly origins: OriginPolicy
  readonly auth: BearerAuth
  readonly dispatcher: Dispatcher
  readonly declarations: Declarations
  /** Undefined until `ready()` has built the manifest, and when it failed. */
  readonly prepared: () => PreparedResponse | undefined
  /** Started by `ready()` when the app declares an event or a channel, else by the first stream. */
  readonly realtime: RealtimeOnDemand
  /** Registers a listener for the catalog, once it is built. */
  readonly onCatalog: (listener: CatalogListener) => void
}

/** The one signature of the plugin's endpoints: manifest, execute + pipeline, streams, MCP, the page. */
export type RegisterEndpoint = (fastify: FastifyInstance, config: Config, context: EndpointContext) => void | Promise<void>
