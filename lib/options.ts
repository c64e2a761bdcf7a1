import type { FastifyRequest, RouteShorthandOptions } from 'fastify'
import { describeValue } from './util/describe.js'
import { isPlainObject } from './util/objects.js'
import { FST_SVC_INVALID_OPTION, FST_SVC_LAYOUT_FIELD } from './errors.js'
import { DEFAULT_BASE_PATH } from './manifest/invocation.js'
import { AUTH_SCHEME_PATTERN } from './manifest/names.js'
import type { SvcLayout } from './manifest/types.js'

/** What to do about routes the plugin never saw: log a warning (default), fail `ready()`, or nothing. */
export type UnseenRoutesMode = 'warn' | 'error' | 'ignore'

/** Any JSON Schema object: TypeBox 0.34 (`@sinclair/typebox`), TypeBox 1.x (`typebox`) or hand-written. */
export type JsonSchema = object

/** Turns a bearer token into a credential; a falsy result or a throw refuses the request. */
export type SvcVerify = (token: string, request: FastifyRequest) => unknown

/** How a command's default name is derived from its route (DESIGN §3). */
export interface SvcNamesOptions {
  /** `'path'` (default): the URL's static segments (`/articles/:slug` → `articles`); `'rest'` adds a verb (`articles.get`). */
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
   * holds (default 8 MiB). Default `true`.
   */
  invoke?: boolean | { maxSteps?: number, maxResultBytes?: number }
  /** Event and channel streams (§9). */
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
}

const DEFAULT_PATH = '/.well-known/svc.json'
const DEFAULT_MAX_AGE = 300
const DEFAULT_UNSEEN_ROUTES: UnseenRoutesMode = 'warn'
/** The most steps one pipeline request may have. */
export const DEFAULT_MAX_STEPS = 16
/** The most bytes of results one pipeline holds: 8 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024
/** Seconds between heartbeat comments on every stream. */
export const DEFAULT_HEARTBEAT = 15
/** Bytes a stream subscriber may leave unread before it is disconnected: 1 MiB. */
export const DEFAULT_MAX_BUFFER_BYTES = 1024 * 1024
/** Milliseconds `ready()` waits for Redis to answer: 5 s. */
export const DEFAULT_CONNECT_TIMEOUT = 5000
/** Milliseconds each Redis command waits for its answer: 2 s. */
export const DEFAULT_COMMAND_TIMEOUT = 2000
/** The longest delay a timer can hold, in milliseconds. */
const MAX_TIMER = 2 ** 31 - 1
/** The longest heartbeat interval a timer can hold, in seconds. */
const MAX_HEARTBEAT = Math.floor(MAX_TIMER / 1000)

export interface RealtimeConfig {
  /** Redis URL (`redis://` or `rediss://`) for fan-out across instances. */
  redis?: string
  heartbeat: number
  maxBufferBytes: number
  /** Milliseconds. */
  connectTimeout: number
  /** Milliseconds. */
  commandTimeout: number
}
/** Where the MCP endpoint is served when `mcp` is `true`. */
export const DEFAULT_MCP_PATH = '/mcp'

/** The bounds of the MCP endpoint's listens and subscription sessions. */
export interface McpLimits {
  /** Distinct channel keys one listen or session may follow. */
  maxSubscriptions: number
  /** Listens and subscription sessions open at once per subject (per remote address without a credential). */
  maxListensPerSubject: number
  /** Listens and subscription sessions open at once in all. */
  maxListens: number
}

export const DEFAULT_MCP_LIMITS: McpLimits = { maxSubscriptions: 100, maxListensPerSubject: 8, maxListens: 1024 }

export interface InvokeLimits {
  maxSteps: number
  maxResultBytes: number
}

/** The plugin options, checked and with defaults applied. */
export interface Config {
  layout: SvcLayout
  name: string
  description: string
  version: string
  baseUrl: string
  about?: string
  auth?: SvcAuthOptions
  path: string
  maxAge: number
  unseenRoutes: UnseenRoutesMode
  /** Without a trailing `/`: `''` when the option is `'/'`. */
  basePath: string
  /** `false` when execute and pipeline are off. */
  invoke: false | InvokeLimits
  realtime: RealtimeConfig
  /** `false` when the MCP endpoint is off. */
  mcp: false | McpLimits & { path: string }
  /** `false` when the human page is off. */
  ui: false | { path: string }
  /** Normalised origins (`https://shop.example`); `'*'` among them accepts every origin. */
  allowedOrigins: string[]
  /** Lower-case host names, with `:port` where the option named one. */
  allowedHosts: string[]
  /** Fastify's `logLevel` and `logSerializers` register options, applied to the manifest route. */
  routeLog: Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>
  /** The declarations given as options, registered before any `app.svc.type/event/channel` call. */
  types: Record<string, unknown>
  events: Record<string, unknown>
  channels: Record<string, unknown>
  names: NamesConfig
}

const PLUGIN_OPTIONS = ['svc', 'name', 'description', 'version', 'baseUrl', 'about', 'auth', 'types', 'events', 'channels', 'path', 'maxAge', 'unseenRoutes', 'basePath', 'invoke', 'realtime', 'mcp', 'ui', 'allowedOrigins', 'allowedHosts', 'names']
/**
 * Register options that Fastify itself understands. Fastify ignores them for a plugin wrapped with
 * fastify-plugin, so the plugin applies the log options to its own route; `prefix` is refused below.
 */
const FASTIFY_OPTIONS = ['logLevel', 'logSerializers']
const KNOWN_OPTIONS = new Set([...PLUGIN_OPTIONS, ...FASTIFY_OPTIONS])

export function readOptions (options: Partial<SvcManifestOptions> | undefined): Config {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options)
  if ('prefix' in options) {
    throw new FST_SVC_INVALID_OPTION('"prefix" has no effect on this plugin (it is not encapsulated, so Fastify ignores it). Set path: \'/api/.well-known/svc.json\', or register the plugin inside a plugin that has the prefix.')
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new FST_SVC_INVALID_OPTION(`unknown option "${key}". Known options: ${PLUGIN_OPTIONS.join(', ')}.`)
  }
  const layout = readLayout(options.svc)
  const config: Config = {
    layout,
    name: requiredString(options, 'name'),
    description: requiredString(options, 'description'),
    version: requiredString(options, 'version'),
    baseUrl: readBaseUrl(options.baseUrl),
    path: readPath(options.path),
    maxAge: readMaxAge(options.maxAge),
    unseenRoutes: readUnseenRoutes(options.unseenRoutes),
    basePath: readBasePath(options.basePath),
    invoke: readInvoke(options.invoke),
    realtime: readRealtime(options.realtime),
    mcp: readMcp(options.mcp),
    ui: readUi(options.ui, options.basePath),
    allowedOrigins: readAllowedOrigins(options.allowedOrigins),
    allowedHosts: readAllowedHosts(options.allowedHosts),
    routeLog: readRouteLog(options as Record<string, unknown>),
    types: readDeclarations(options.types, 'types'),
    events: readDeclarations(options.events, 'events'),
    channels: readDeclarations(options.channels, 'channels'),
    names: readNames(options.names)
  }
  if (options.about !== undefined) config.about = readAbout(options.about, layout)
  if (options.auth !== undefined) config.auth = readAuth(options.auth)
  if (options.channels !== undefined && layout !== '0.5.0') throw layoutOnly('channels')
  return config
}

/**
 * A copy of a `types`, `events` or `channels` map; each entry is checked, and what the manifest needs of it
 * copied, when it is registered, which happens while the plugin registers.
 */
function readDeclarations (value: unknown, key: string): Record<string, unknown> {
  if (value === undefined) return {}
  if (!isPlainObject(value)) fail(key, 'an object that maps names to definitions', value)
  return { ...value }
}

/** Refuses the first key of an option object that is not one of `known`, naming what the option takes. */
function onlyKeys (value: Record<string, unknown>, option: string, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const takes = known.length === 1 ? known[0] : `${known.slice(0, -1).join(', ')} and ${known[known.length - 1]}`
      fail(`${option}.${key}`, `absent (${option} takes ${takes})`, value[key])
    }
  }
}

function fail (option: string, expected: string, actual: unknown): never {
  throw new FST_SVC_INVALID_OPTION(`"${option}" must be ${expected}; got ${describeValue(actual)}.`)
}

function readLayout (layout: unknown): SvcLayout {
  if (layout === undefined) return '1.0'
  if (layout === '1.0' || layout === '0.5.0') return layout
  fail('svc', '"1.0" or "0.5.0" (the manifest layout)', layout)
}

function requiredString (options: Record<string, unknown>, key: string): string {
  const value = options[key]
  if (typeof value !== 'string' || value.trim() === '') fail(key, 'a non-empty string', value)
  return value
}

function readBaseUrl (value: unknown): string {
  const expected = 'an absolute http(s) URL such as "https://shop.example"'
  if (typeof value !== 'string' || !URL.canParse(value)) fail('baseUrl', expected, value)
  const { protocol } = new URL(value)
  if (protocol !== 'http:' && protocol !== 'https:') fail('baseUrl', expected, value)
  return value
}

function readPath (value: unknown): string {
  if (value === undefined) return DEFAULT_PATH
  if (typeof value !== 'string' || !value.startsWith('/') || /[\s?#]/.test(value)) {
    fail('path', 'a URL path starting with "/" (no query, fragment or spaces)', value)
  }
  return value
}

function readMaxAge (value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_AGE
  if (!Number.isSafeInteger(value) || (value as number) < 0) fail('maxAge', 'a whole number of seconds, 0 or more', value)
  return value as number
}

function readUnseenRoutes (value: unknown): UnseenRoutesMode {
  if (value === undefined) return DEFAULT_UNSEEN_ROUTES
  if (value === 'warn' || value === 'error' || value === 'ignore') return value
  fail('unseenRoutes', '"warn", "error" or "ignore"', value)
}

function readBasePath (value: unknown): string {
  if (value === undefined) return DEFAULT_BASE_PATH
  // Also a URL in the manifest's Link header, and a plain route prefix: no params, wildcards or spaces.
  if (typeof value !== 'string' || !/^\/[A-Za-z0-9\-._~%/]*$/.test(value)) {
    fail('basePath', 'a URL path starting with "/" of letters, digits, "-", ".", "_", "~", "%" and "/" (such as "/svc")', value)
  }
  return value.replace(/\/+$/, '')
}

function readInvoke (value: unknown): Config['invoke'] {
  if (value === undefined || value === true) return { maxSteps: DEFAULT_MAX_STEPS, maxResultBytes: DEFAULT_MAX_RESULT_BYTES }
  if (value === false) return false
  if (!isPlainObject(value)) fail('invoke', 'true, false or { maxSteps?, maxResultBytes? }', value)
  onlyKeys(value, 'invoke', ['maxSteps', 'maxResultBytes'])
  const { maxSteps = DEFAULT_MAX_STEPS, maxResultBytes = DEFAULT_MAX_RESULT_BYTES } = value
  if (!Number.isSafeInteger(maxSteps) || (maxSteps as number) < 1) fail('invoke.maxSteps', 'a whole number of 1 or more', maxSteps)
  if (!Number.isSafeInteger(maxResultBytes) || (maxResultBytes as number) < 1) fail('invoke.maxResultBytes', 'a whole number of bytes, 1 or more', maxResultBytes)
  return { maxSteps: maxSteps as number, maxResultBytes: maxResultBytes as number }
}

function readAllowedOrigins (value: unknown): string[] {
  const expected = 'an array of origins such as "https://app.example" (scheme, host and port only), or "*"'
  if (value === undefined) return []
  if (!Array.isArray(value)) fail('allowedOrigins', expected, value)
  return value.map((origin: unknown, index) => {
    if (origin === '*') return origin
    const parsed = typeof origin === 'string' && URL.canParse(origin) ? new URL(origin) : undefined
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || `${parsed.origin}/` !== parsed.href || (origin as string).endsWith('/')) {
      fail(`allowedOrigins[${index}]`, expected, origin)
    }
    return parsed.origin
  })
}

function readAllowedHosts (value: unknown): string[] {
  const expected = 'an array of host names such as "shop.local" or "shop.local:8080"'
  if (value === undefined) return []
  if (!Array.isArray(value)) fail('allowedHosts', expected, value)
  return value.map((host: unknown, index) => {
    const parsed = typeof host === 'string' && URL.canParse(`http://${host}`) ? new URL(`http://${host}`) : undefined
    if (parsed === undefined || parsed.host === '' || `http://${parsed.host}/` !== parsed.href || parsed.host !== (host as string).toLowerCase()) {
      fail(`allowedHosts[${index}]`, expected, host)
    }
    return parsed.host
  })
}

function readMcp (value: unknown): Config['mcp'] {
  if (value === undefined || value === false) return false
  if (value === true) return { path: DEFAULT_MCP_PATH, ...DEFAULT_MCP_LIMITS }
  if (!isPlainObject(value)) fail('mcp', 'true, false or { path, maxSubscriptions, maxListensPerSubject, maxListens }', value)
  onlyKeys(value, 'mcp', ['path', 'maxSubscriptions', 'maxListensPerSubject', 'maxListens'])
  const { path = DEFAULT_MCP_PATH } = value
  const read = { ...DEFAULT_MCP_LIMITS }
  for (const name of Object.keys(DEFAULT_MCP_LIMITS) as Array<keyof McpLimits>) {
    const given = value[name] ?? DEFAULT_MCP_LIMITS[name]
    if (!Number.isSafeInteger(given) || (given as number) < 1) fail(`mcp.${name}`, 'a whole number, 1 or more', given)
    read[name] = given as number
  }
  // Also a URL in the manifest's Link header: no params, wildcards or spaces.
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9\-._~%/]*$/.test(path)) {
    fail('mcp.path', 'a URL path starting with "/" of letters, digits, "-", ".", "_", "~", "%" and "/" (such as "/mcp")', path)
  }
  return { path, ...read }
}

/** The page's path defaults to `{basePath}/ui`, beside the endpoints it calls. */
function readUi (value: unknown, basePath: unknown): Config['ui'] {
  if (value === undefined || value === false) return false
  const defaultPath = `${readBasePath(basePath)}/ui`
  if (value === true) return { path: defaultPath }
  if (!isPlainObject(value)) fail('ui', 'true, false or { path }', value)
  onlyKeys(value, 'ui', ['path'])
  const { path = defaultPath } = value
  // Also a URL in the manifest's Link header and the prefix of the page's assets: no params, wildcards or spaces.
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9\-._~%/]*[A-Za-z0-9\-._~%]$/.test(path)) {
    fail('ui.path', 'a URL path starting with "/", of letters, digits, "-", ".", "_", "~", "%" and "/", not ending in "/" (such as "/svc/ui")', path)
  }
  return { path }
}

function readRouteLog (options: Record<string, unknown>): Config['routeLog'] {
  const routeLog: Config['routeLog'] = {}
  if (options.logLevel !== undefined) {
    if (typeof options.logLevel !== 'string') fail('logLevel', 'a log level name such as "warn"', options.logLevel)
    routeLog.logLevel = options.logLevel as Config['routeLog']['logLevel']
  }
  if (options.logSerializers !== undefined) {
    if (!isPlainObject(options.logSerializers)) fail('logSerializers', 'an object of serializer functions', options.logSerializers)
    routeLog.logSerializers = { ...options.logSerializers } as Config['routeLog']['logSerializers']
  }
  return routeLog
}

function readAbout (value: unknown, layout: SvcLayout): string {
  if (layout !== '0.5.0') throw layoutOnly('about')
  if (typeof value !== 'string') fail('about', 'a string', value)
  return value
}

function layoutOnly (field: string): Error {
  return new FST_SVC_LAYOUT_FIELD(`"${field}" exists only in layout "0.5.0". Set svc: '0.5.0' or remove "${field}".`)
}

function readNames (value: unknown): NamesConfig {
  if (value === undefined) return { style: 'path' }
  if (!isPlainObject(value)) fail('names', 'an object { style?: \'path\' | \'rest\', stripPrefix? }', value)
  onlyKeys(value, 'names', ['style', 'stripPrefix'])
  const { style = 'path', stripPrefix } = value
  if (style !== 'path' && style !== 'rest') fail('names.style', '"path" or "rest"', style)
  const names: NamesConfig = { style }
  if (stripPrefix !== undefined) {
    // A prefix of static segments, as a plugin's `prefix` is: no params, wildcards or trailing "/".
    if (typeof stripPrefix !== 'string' || !/^(\/[A-Za-z0-9\-._~%]+)+$/.test(stripPrefix)) {
      fail('names.stripPrefix', 'a URL path of static segments such as "/api" (starting with "/", not ending with "/")', stripPrefix)
    }
    names.stripPrefix = stripPrefix
  }
  return names
}

const SCHEME = new RegExp(AUTH_SCHEME_PATTERN)

function readAuth (value: unknown): SvcAuthOptions {
  if (!isPlainObject(value)) fail('auth', 'an object { type: \'bearer\', description, verify? }', value)
  if (value.type !== 'bearer') fail('auth.type', '"bearer" (the only scheme supported)', value.type)
  if (typeof value.description !== 'string' || value.description.trim() === '') fail('auth.description', 'a non-empty string', value.description)
  if (value.verify !== undefined && typeof value.verify !== 'function') fail('auth.verify', 'a function (token, request) => credential', value.verify)
  if (value.subject !== undefined && typeof value.subject !== 'function') fail('auth.subject', 'a function (credential) => subject string', value.subject)
  if (value.scheme !== undefined && (typeof value.scheme !== 'string' || !SCHEME.test(value.scheme))) {
    fail('auth.scheme', 'a scheme word of letters, digits and "-._~+!#$%&\'*^`|" such as "Bearer" or "Token"', value.scheme)
  }
  if (value.scopes !== undefined && typeof value.scopes !== 'function') fail('auth.scopes', 'a function (credential) => array of scope strings', value.scopes)
  onlyKeys(value, 'auth', ['type', 'description', 'verify', 'subject', 'scheme', 'scopes', 'authorizationServers'])
  // A copy: what was checked is what is used, whatever happens to the caller's object afterwards.
  const auth: SvcAuthOptions = { type: 'bearer', description: value.description }
  if (value.verify !== undefined) auth.verify = value.verify as SvcVerify
  if (value.subject !== undefined) auth.subject = value.subject as SvcAuthOptions['subject']
  if (value.scheme !== undefined) auth.scheme = value.scheme as string
  if (value.scopes !== undefined) auth.scopes = value.scopes as SvcAuthOptions['scopes']
  if (value.authorizationServers !== undefined) auth.authorizationServers = readAuthorizationServers(value.authorizationServers)
  return auth
}

function readAuthorizationServers (value: unknown): string[] {
  const expected = 'a non-empty array of issuer URLs such as "https://id.example" (https, no query or fragment)'
  if (!Array.isArray(value) || value.length === 0) fail('auth.authorizationServers', expected, value)
  return value.map((issuer: unknown, index) => {
    const parsed = typeof issuer === 'string' && URL.canParse(issuer) ? new URL(issuer) : undefined
    if (parsed === undefined || parsed.protocol !== 'https:' || /[?#]/.test(issuer as string)) {
      fail(`auth.authorizationServers[${index}]`, expected, issuer)
    }
    return issuer as string
  })
}

function readRealtime (value: unknown): RealtimeConfig {
  if (value === undefined) return { heartbeat: DEFAULT_HEARTBEAT, maxBufferBytes: DEFAULT_MAX_BUFFER_BYTES, connectTimeout: DEFAULT_CONNECT_TIMEOUT, commandTimeout: DEFAULT_COMMAND_TIMEOUT }
  if (!isPlainObject(value)) fail('realtime', 'an object { redis?, heartbeat?, maxBufferBytes?, connectTimeout?, commandTimeout? }', value)
  onlyKeys(value, 'realtime', ['redis', 'heartbeat', 'maxBufferBytes', 'connectTimeout', 'commandTimeout'])
  const { redis, heartbeat = DEFAULT_HEARTBEAT, maxBufferBytes = DEFAULT_MAX_BUFFER_BYTES, connectTimeout = DEFAULT_CONNECT_TIMEOUT, commandTimeout = DEFAULT_COMMAND_TIMEOUT } = value
  if (typeof heartbeat !== 'number' || !(heartbeat > 0 && heartbeat <= MAX_HEARTBEAT)) {
    fail('realtime.heartbeat', `a number of seconds above 0 and at most ${MAX_HEARTBEAT}`, heartbeat)
  }
  if (!Number.isSafeInteger(maxBufferBytes) || (maxBufferBytes as number) < 1) fail('realtime.maxBufferBytes', 'a whole number of bytes, 1 or more', maxBufferBytes)
  // Milliseconds, as ioredis's own connectTimeout; a timer cannot hold more than MAX_TIMER.
  if (!Number.isSafeInteger(connectTimeout) || !((connectTimeout as number) >= 1 && (connectTimeout as number) <= MAX_TIMER)) {
    fail('realtime.connectTimeout', `a whole number of milliseconds, 1 or more and at most ${MAX_TIMER} (e.g. 5000 for 5 s)`, connectTimeout)
  }
  if (!Number.isSafeInteger(commandTimeout) || !((commandTimeout as number) >= 1 && (commandTimeout as number) <= MAX_TIMER)) {
    fail('realtime.commandTimeout', `a whole number of milliseconds, 1 or more and at most ${MAX_TIMER} (e.g. 2000 for 2 s)`, commandTimeout)
  }
  const config: RealtimeConfig = { heartbeat, maxBufferBytes: maxBufferBytes as number, connectTimeout: connectTimeout as number, commandTimeout: commandTimeout as number }
  if (redis !== undefined) config.redis = readRedisUrl(redis)
  return config
}

function readRedisUrl (value: unknown): string {
  const expected = 'a Redis URL such as "redis://127.0.0.1:6379" (redis: or rediss:)'
  if (typeof value !== 'string' || !URL.canParse(value) || !/^rediss?:$/.test(new URL(value).protocol)) fail('realtime.redis', expected, value)
  return value
}
