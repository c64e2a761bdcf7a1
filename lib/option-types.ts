import type { FastifyRequest } from 'fastify'
import type { SvcLayout } from './manifest/types.js'

/*
 * The plugin's options as users write them, with their docs (docs/options.md says the same at length). Each
 * key is read by one entry of the option table in options.ts, which refuses to compile when a key is here
 * and not there, or there and not here.
 */

/** What to do about routes the plugin never saw: log a warning (default), fail `ready()`, or nothing. */
export type UnseenRoutesMode = 'warn' | 'error' | 'ignore'

/** Any JSON Schema object: TypeBox 0.34 (`@sinclair/typebox`), TypeBox 1.x (`typebox`) or hand-written. */
export type JsonSchema = object

/** Turns a bearer token into a credential; a falsy result or a throw refuses the request. */
export type SvcVerify = (token: string, request: FastifyRequest) => unknown

/** How a command's default name is derived from its route (docs/routes.md). */
export interface SvcNamesOptions {
  /**
   * `'path'` (default): the URL's static segments (`/articles/:slug` → `articles`; `/` → `root`). `'rest'` adds a
   * verb from the method (`articles.get`, `articles.list`, `articles.create`); a GET answering one value, not a
   * list, is `get` (`GET /health` → `health.get`).
   */
  style?: 'path' | 'rest'
  /** Removed from the URL before a name is derived, such as `'/api'`. */
  stripPrefix?: string
}

/** `names`, checked and with its default applied. */
export interface NamesConfig {
  style: 'path' | 'rest'
  stripPrefix?: string
}

export interface SvcAuthOptions {
  /** The only scheme the spec shows. */
  type: 'bearer'
  /** Human-readable description of the credential, served in the manifest. */
  description: string
  /** Verifies a token. Without it, `request.jwtVerify()` of `@fastify/jwt` is used when registered. */
  verify?: SvcVerify
  /**
   * The subject of a credential, matched against `emit(…, { to })` and channel keys. Default:
   * `credential.sub` when it is a string. A result that is not a non-empty string means no subject.
   */
  subject?: (credential: any) => unknown
  /** The scheme word expected in `Authorization` and named in the challenge, such as `'Token'`. Default `'Bearer'`. */
  scheme?: string
  /**
   * The scopes a credential grants, checked against `svc.scopes`. Default: `credential.scope` split on
   * spaces, else the `credential.scp` or `credential.scopes` array.
   */
  scopes?: (credential: any) => readonly string[] | undefined
  /**
   * Issuer URLs (https) of the authorization servers that issue tokens for this service (RFC 9728). When set,
   * every 401 challenge names the protected resource metadata document by `resource_metadata`.
   */
  authorizationServers?: string[]
}

export interface SvcEventOptions {
  description: string
  /** Object schema of the payload; each property becomes a `data` field. */
  data?: JsonSchema
}

export interface SvcChannelOptions {
  description: string
  /**
   * Who may watch a key of this channel. Default: with `auth`, the subscriber whose subject equals the
   * key; without `auth`, everyone.
   */
  authorize?: SvcChannelAuthorize
}

/**
 * Decides who may watch a key of a channel: resolve `true` to let the subscriber in; anything else
 * answers 403. `credential` is what `auth.verify` returned (`null` without `auth`).
 */
export type SvcChannelAuthorize = (credential: any, key: string, request: FastifyRequest) => boolean | Promise<boolean>

export interface SvcRealtimeOptions {
  /** `redis://…` or `rediss://…`: events and channel states fan out across instances through Redis. Needs `mqemitter-redis`. */
  redis?: string
  /** Seconds between heartbeat comments on every stream. Default 15. */
  heartbeat?: number
  /**
   * Bytes a subscriber may leave unread before it is disconnected. Default 1 MiB. Also the largest frame:
   * `emit()` and `publish()` refuse a larger one (`FST_SVC_PAYLOAD_TOO_LARGE`).
   */
  maxBufferBytes?: number
  /**
   * Milliseconds `ready()` waits for Redis to answer (a host that accepts the connection and never answers
   * included) before it rejects with `FST_SVC_BROKER_UNAVAILABLE`; also the limit of each reconnection's
   * TCP connect. Default 5000.
   */
  connectTimeout?: number
  /**
   * Milliseconds each Redis command may wait for its answer: past it, `publish()` rejects with
   * `FST_SVC_BROKER_UNAVAILABLE`, an `emit()` is logged at `error`, a new channel stream answers 503, and
   * the connection is dropped and made again. Also bounds `app.close()`. Default 2000.
   */
  commandTimeout?: number
  /**
   * A broker of your own, in place of `redis`: any message bus and state store your instances share
   * (docs/realtime.md, "A broker of your own"). The plugin subscribes and unsubscribes on it, bounds each of
   * its answers by `commandTimeout`, and never closes it: it is yours, as @fastify/rate-limit's `store` is.
   */
  broker?: SvcBroker
}

/** What travels through a broker: an event or a channel state; `topic` decides who receives it. */
export interface SvcBrokerMessage {
  topic: string
  [field: string]: unknown
}

/**
 * A message bus and a state store shared by the instances of a service. Every method may be async;
 * `subscribe` resolves once messages sent afterwards reach `listener`, which calls `done` once it has
 * handled each. `store` replaces the state under `key` and answers its new version (1 for the first) and
 * the store's `epoch` (a name for the store's life: change it when the store lost its keys, so versions
 * that start again at 1 are not taken for old ones); `read` answers version 0 and `json: 'null'` for a
 * key never stored.
 */
export interface SvcBroker {
  send (message: SvcBrokerMessage): Promise<void>
  subscribe (topic: string, listener: (message: SvcBrokerMessage, done: () => void) => void): Promise<void>
  unsubscribe (topic: string, listener: (message: SvcBrokerMessage, done: () => void) => void): void
  store (key: string, json: string): Promise<{ version: number, epoch: string }>
  read (key: string): Promise<{ version: number, epoch: string, json: string }>
  /** Called with a listener the plugin runs when the broker is back after an outage (messages may be lost). */
  onReconnect? (listener: () => void): void
  /** `false` while the broker cannot be reached: channel streams are refused meanwhile. Default `true`. */
  readonly available?: boolean
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
  /**
   * What `ready()` does about routes the plugin never saw (registered before it, or in a context beside
   * it), which the manifest does not describe and `auth` does not protect: `'warn'` (default) logs them,
   * `'error'` rejects with `FST_SVC_UNSEEN_ROUTES`, `'ignore'` does nothing.
   */
  unseenRoutes?: UnseenRoutesMode
  /** Where the plugin's endpoints live: `{basePath}/execute`, `{basePath}/pipeline`. Default `'/svc'`. */
  basePath?: string
  /**
   * `false` turns execute and pipeline off. `maxSteps` limits a pipeline (default 16; also the most messages
   * of one JSON-RPC batch on the MCP endpoint); `maxResultBytes` the bytes of a route's body one call holds
   * (execute, a pipeline step, MCP `tools/call`; past it the call is 413) and of the results one pipeline
   * holds (default 8 MiB); `timeout` the deadline in milliseconds of every execute, pipeline step and MCP
   * call (default 300000; `0`: none; a command's `svc.timeout` sets its own). Default `true`.
   */
  invoke?: boolean | { maxSteps?: number, maxResultBytes?: number, timeout?: number }
  /** Event and channel streams (docs/realtime.md). */
  realtime?: SvcRealtimeOptions
  /**
   * `true` or `{ path, … }` serves every command as an MCP tool over Streamable HTTP (default path `'/mcp'`).
   * `maxSubscriptions`: distinct channel keys one listen or session may follow (default 100);
   * `maxListensPerSubject`: listens and subscription sessions open at once per subject, or per remote
   * address without a credential (default 8); `maxListens`: in all (default 1024). Default `false`.
   */
  mcp?: boolean | { path?: string, maxSubscriptions?: number, maxListensPerSubject?: number, maxListens?: number }
  /**
   * `true` or `{ path }` serves the human page: the manifest to browse, every command to try, the events to
   * watch (default path `'{basePath}/ui'`). Default `false`.
   */
  ui?: boolean | { path?: string }
  /**
   * Origins, besides `baseUrl`'s, whose requests (their `Origin` header) the endpoints that act accept:
   * execute, pipeline, the streams and MCP. `'*'` accepts every origin, which lets any web page act with a
   * visitor's credentials: unsafe unless nothing is behind auth. Default `[]`.
   */
  allowedOrigins?: string[]
  /**
   * Host names (`shop.local`, or `shop.local:8080` for one port), besides loopback names and `baseUrl`'s
   * host, that a request arriving on a loopback address may name in `Host` (DNS rebinding). Default `[]`.
   */
  allowedHosts?: string[]
  /**
   * How default command names are derived: `{ style: 'path' }` (default, `/articles/:slug` → `articles`) or
   * `{ style: 'rest' }` (`articles.get`), with `stripPrefix` (such as `'/api'`) removed first. `svc.name` always wins.
   */
  names?: SvcNamesOptions
  /**
   * `true`: a command route without a description (`svc.description`, `schema.description` or
   * `schema.summary`) fails `ready()` with `FST_SVC_MISSING_DESCRIPTION`. Default `false`: its description is
   * derived from its method and URL (`GET /roles/:id`), and `ready()` logs one warning naming every such route.
   */
  requireDescriptions?: boolean
  /**
   * `true` serves what lets agents find and read the service without knowing the manifest's path: the API
   * catalog at `/.well-known/api-catalog` (RFC 9727: a linkset naming the manifest, the page and the MCP
   * endpoint) and `/llms.txt` (the public manifest as Markdown for a language model), both named in the
   * manifest's `Link` header. Default `false`.
   */
  discovery?: boolean
}
