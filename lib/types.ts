import type { FastifyRequest } from 'fastify'

/** Any JSON Schema object: TypeBox 0.34 (`@sinclair/typebox`), TypeBox 1.x (`typebox`) or hand-written. */
export type JsonSchema = object

/** The two manifest layouts of the spec. */
export type SvcLayout = '1.0' | '0.5.0'

/** Turns a bearer token into a credential; a falsy result or a throw refuses the request. */
export type SvcVerify = (token: string, request: FastifyRequest) => unknown

export interface SvcAuthOptions {
  /** The only scheme the spec shows. */
  type: 'bearer'
  /** Human-readable description of the credential, served in the manifest. */
  description: string
  /** Verifies a token. Without it, `request.jwtVerify()` of `@fastify/jwt` is used when registered. */
  verify?: SvcVerify
}

export interface SvcEventOptions {
  description: string
  /** Object schema of the payload; each property becomes a `data` field. */
  data?: JsonSchema
}

export interface SvcChannelOptions {
  description: string
}

export interface SvcManifestOptions {
  /** Manifest layout. Default `'1.0'`. */
  svc?: SvcLayout
  name: string
  description: string
  /** The service's own API version. */
  version: string
  /** Absolute http(s) URL of the service. */
  baseUrl: string
  /** Longer context for agents; layout `0.5.0` only. */
  about?: string
  auth?: SvcAuthOptions
  types?: Record<string, JsonSchema>
  events?: Record<string, SvcEventOptions>
  /** Live channels; layout `0.5.0` only. */
  channels?: Record<string, SvcChannelOptions>
  /** Where the manifest is served. Default `'/.well-known/svc.json'`. */
  path?: string
  /** `Cache-Control: public, max-age=<maxAge>` in seconds. Default 300. */
  maxAge?: number
}

export interface SvcHints {
  idempotent?: boolean
  sideEffects?: boolean
}

/** The `svc` route option: tags a route as a command of the manifest. */
export interface SvcRouteOptions {
  /** Command name; default derived from the URL (`/carts/:id/items` → `carts.items`). */
  name?: string
  description: string
  /** Object schema of the params; installed as the route's body (POST/PUT/PATCH) or querystring schema. */
  params?: JsonSchema
  returns?: JsonSchema
  tags?: string[]
  hints?: SvcHints
  auth?: 'required'
}

// ----- The manifest as served -----

export interface ManifestParam {
  type: string
  required: boolean
  default?: unknown
  description?: string
}

export interface ManifestTypeRef {
  type: string
  description?: string
}

export interface ManifestCommand {
  description: string
  params?: Record<string, ManifestParam>
  returns?: ManifestTypeRef
  tags?: string[]
  hints?: SvcHints
  auth?: 'required'
}

export interface ManifestEvent {
  description: string
  data?: Record<string, ManifestTypeRef>
}

export interface ManifestChannel {
  description: string
}

export interface ManifestType {
  type: string
  description?: string
  properties?: Record<string, ManifestTypeRef>
}

export interface Manifest {
  svc: SvcLayout
  name: string
  description: string
  about?: string
  version: string
  baseUrl: string
  auth?: { type: 'bearer', description: string }
  commands: Record<string, ManifestCommand>
  events: Record<string, ManifestEvent>
  channels?: Record<string, ManifestChannel>
  types: Record<string, ManifestType>
  checksum: string
  updatedAt: string
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
}
