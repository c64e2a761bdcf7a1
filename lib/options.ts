import type { RouteShorthandOptions } from 'fastify'
import { describeValue } from './util/describe.js'
import { isPlainObject } from './util/objects.js'
import { FST_SVC_INVALID_OPTION, FST_SVC_LAYOUT_FIELD } from './errors.js'
import { DEFAULT_BASE_PATH } from './manifest/invocation.js'
import { AUTH_SCHEME_PATTERN } from './manifest/names.js'
import type { SvcLayout } from './manifest/types.js'
import type {
  SvcAuthOptions, SvcBroker, SvcManifestOptions, SvcNamesOptions, SvcRealtimeOptions, SvcVerify, UnseenRoutesMode
} from './option-types.js'

/*
 * The options are one table: each key of SvcManifestOptions (option-types.ts) has one reader here, built
 * from the small readers below. The keys, the defaults, the unknown-key check and the Config type all come
 * from the table; a key added to the public types and not here (or here and not there) does not compile.
 */

/**
 * Reads one option's value: `at` names it in messages (`invoke.maxSteps`); `options` is the whole options
 * object, for the options whose rule or default depends on another (`about`, `channels`, `ui.path`).
 */
type Reader<T> = (value: unknown, at: string, options: Record<string, unknown>) => T
/** The readers of an object's keys. */
type Fields = Record<string, Reader<unknown>>
/** A reader for each key of `T`, and no other. */
type ReadersOf<T> = { [K in keyof Required<T>]: Reader<unknown> }
/** What a table of readers reads: a key whose reader may give `undefined` is optional, and left out then. */
type Read<F extends Fields> = Flat<
  { [K in keyof F as undefined extends ReturnType<F[K]> ? never : K]: ReturnType<F[K]> } &
  { [K in keyof F as undefined extends ReturnType<F[K]> ? K : never]?: Exclude<ReturnType<F[K]>, undefined> }
>
type Flat<T> = { [K in keyof T]: T[K] }

function fail (at: string, expected: string, actual: unknown): never {
  throw new FST_SVC_INVALID_OPTION(`"${at}" must be ${expected}; got ${describeValue(actual)}.`)
}

/** `fallback` when the option is left out, else what `read` makes of it. */
function withDefault<T> (fallback: T, read: Reader<T>): Reader<T> {
  return (value, at, options) => value === undefined ? fallback : read(value, at, options)
}

/** Nothing when the option is left out, else what `read` makes of it. */
function optional<T> (read: Reader<T>): Reader<T | undefined> {
  return (value, at, options) => value === undefined ? undefined : read(value, at, options)
}

function oneOf<const T extends readonly string[]> (values: T, expected: string): Reader<T[number]> {
  return (value, at) => values.includes(value as string) ? value as T[number] : fail(at, expected, value)
}

function text (expected = 'a string'): Reader<string> {
  return (value, at) => typeof value === 'string' ? value : fail(at, expected, value)
}

/** Checked after trimming, used as given. */
const nonEmptyText: Reader<string> = (value, at) => typeof value === 'string' && value.trim() !== '' ? value : fail(at, 'a non-empty string', value)

function matching (pattern: RegExp, expected: string): Reader<string> {
  return (value, at) => typeof value === 'string' && pattern.test(value) ? value : fail(at, expected, value)
}

function wholeNumber (expected: string, min = 1, max = Number.MAX_SAFE_INTEGER): Reader<number> {
  return (value, at) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max ? value as number : fail(at, expected, value)
}

const flag: Reader<boolean> = (value, at) => typeof value === 'boolean' ? value : fail(at, 'true or false', value)

function functionOf<T> (expected: string): Reader<T> {
  return (value, at) => typeof value === 'function' ? value as T : fail(at, expected, value)
}

/**
 * A URL path of plain segments: also a URL in the manifest's Link header and a route prefix, so no params,
 * wildcards, spaces, query or fragment. With `trailingSlash: false`, it does not end in "/" either (the
 * page's path, the prefix of its assets).
 */
function urlPath (example: string, { trailingSlash = true } = {}): Reader<string> {
  const segments = 'letters, digits, "-", ".", "_", "~", "%" and "/"'
  return trailingSlash
    ? matching(/^\/[A-Za-z0-9\-._~%/]*$/, `a URL path starting with "/" of ${segments} (such as "${example}")`)
    : matching(/^\/[A-Za-z0-9\-._~%/]*[A-Za-z0-9\-._~%]$/, `a URL path starting with "/", of ${segments}, not ending in "/" (such as "${example}")`)
}

function parsedUrl (value: unknown): URL | undefined {
  return typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined
}

/** An absolute URL of one of `protocols` (`'http:'`), kept as given. */
function url (protocols: readonly string[], expected: string): Reader<string> {
  return (value, at) => protocols.includes(parsedUrl(value)?.protocol as string) ? value as string : fail(at, expected, value)
}

/** An array of strings, each read by `item` (`undefined` refuses it and names its index). */
function listOf (expected: string, item: (value: unknown) => string | undefined, { nonEmpty = false } = {}): Reader<string[]> {
  return (value, at) => {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) fail(at, expected, value)
    return value.map((entry: unknown, index) => item(entry) ?? fail(`${at}[${index}]`, expected, entry))
  }
}

/** Origins, normalised (`https://shop.example`); `'*'` among them accepts every origin. */
const origins = listOf('an array of origins such as "https://app.example" (scheme, host and port only), or "*"', (origin) => {
  if (origin === '*') return origin
  const parsed = parsedUrl(origin)
  const plain = parsed !== undefined && /^https?:$/.test(parsed.protocol) && `${parsed.origin}/` === parsed.href && !(origin as string).endsWith('/')
  return plain ? parsed.origin : undefined
})

/** Lower-case host names, with `:port` where one is named. */
const hosts = listOf('an array of host names such as "shop.local" or "shop.local:8080"', (host) => {
  const parsed = typeof host === 'string' ? parsedUrl(`http://${host}`) : undefined
  const plain = parsed !== undefined && parsed.host !== '' && `http://${parsed.host}/` === parsed.href && parsed.host === (host as string).toLowerCase()
  return plain ? parsed.host : undefined
})

/** https issuer URLs, kept as given. */
const issuers = listOf('a non-empty array of issuer URLs such as "https://id.example" (https, no query or fragment)', (issuer) => {
  return parsedUrl(issuer)?.protocol === 'https:' && !/[?#]/.test(issuer as string) ? issuer as string : undefined
}, { nonEmpty: true })

/** A shallow copy of an object: what was checked is what is used, whatever happens to the caller's object. */
function copyOf (expected: string): Reader<Record<string, unknown>> {
  return (value, at) => isPlainObject(value) ? { ...value } : fail(at, expected, value)
}

const BROKER_METHODS = ['send', 'subscribe', 'unsubscribe', 'store', 'read'] as const

/** A broker of the user's own: the methods the hubs call, and not beside `redis` (one or the other). */
const broker: Reader<SvcBroker> = (value, at, options) => {
  const expected = `an object with the methods ${BROKER_METHODS.join(', ')} (docs/realtime.md)`
  if (typeof value !== 'object' || value === null) fail(at, expected, value)
  const missing = BROKER_METHODS.find((method) => typeof (value as Record<string, unknown>)[method] !== 'function')
  if (missing !== undefined) fail(`${at}.${missing}`, 'a function', (value as Record<string, unknown>)[missing])
  if ((options.realtime as SvcRealtimeOptions).redis !== undefined) fail('realtime.redis', 'absent beside realtime.broker (the broker carries the messages)', (options.realtime as SvcRealtimeOptions).redis)
  return value as SvcBroker
}

/** The first key of `value` that `known` does not name: the one unknown-key check. */
function unknownKey (value: object, known: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !known.includes(key))
}

/** Reads each key of `fields` from `value`, in the table's order; `at` prefixes the names in messages. */
function readFields<F extends Fields> (fields: F, value: Record<string, unknown>, at: string | undefined, options: Record<string, unknown>): Read<F> {
  const read: Record<string, unknown> = {}
  for (const [key, reader] of Object.entries(fields)) {
    const result = reader(value[key], at === undefined ? key : `${at}.${key}`, options)
    if (result !== undefined) read[key] = result
  }
  return read as Read<F>
}

/** An object of `fields` and no other key; left out, each field takes its default. */
function object<F extends Fields> (fields: F, expected: string): Reader<Read<F>> {
  const known = Object.keys(fields)
  const takes = known.length === 1 ? known[0] : `${known.slice(0, -1).join(', ')} and ${known[known.length - 1]}`
  return (value = {}, at, options) => {
    if (!isPlainObject(value)) fail(at, expected, value)
    const key = unknownKey(value, known)
    if (key !== undefined) fail(`${at}.${key}`, `absent (${at} takes ${takes})`, value[key])
    return readFields(fields, value, at, options)
  }
}

/** `false` (off), or `true` and an object (on; `true` takes every default); left out, `on`. */
function toggle<T> (on: boolean, read: Reader<T>): Reader<false | T> {
  return (value = on, at, options) => value === false ? false : read(value === true ? {} : value, at, options)
}

/** The longest delay a timer can hold, in milliseconds. */
const MAX_TIMER = 2 ** 31 - 1
/** The longest heartbeat interval a timer can hold, in seconds. */
const MAX_HEARTBEAT = Math.floor(MAX_TIMER / 1000)
/** The most steps one pipeline request may have (and messages one MCP batch). */
export const DEFAULT_MAX_STEPS = 16
/** The most bytes of a route's body one call holds, and of the results one pipeline holds: 8 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024
/** The deadline of every execute, pipeline step and MCP call: 5 minutes. */
export const DEFAULT_INVOKE_TIMEOUT = 300_000
/** The longest deadline a timer can hold, in milliseconds. */
export const MAX_DEADLINE = MAX_TIMER

/**
 * `about` and `channels` exist only in layout `0.5.0`: the one place this rule is written, read by the
 * options, `app.svc.channel()`, the manifest's builder and the channel streams.
 */
export function hasAboutAndChannels (layout: SvcLayout): boolean {
  return layout === '0.5.0'
}

/** `FST_SVC_LAYOUT_FIELD` unless `layout` has `about` and `channels`: `used` says what was used, `fix` the other way out. */
export function requireAboutAndChannels (layout: SvcLayout, used: string, fix: string): void {
  if (!hasAboutAndChannels(layout)) throw new FST_SVC_LAYOUT_FIELD(`${used} only in layout "0.5.0". Set svc: '0.5.0' or ${fix}.`)
}

const layout = withDefault<SvcLayout>('1.0', oneOf(['1.0', '0.5.0'], '"1.0" or "0.5.0" (the manifest layout)'))

/** A field of layout `0.5.0` only. */
function onlyInLayout05<T> (read: Reader<T>): Reader<T> {
  return (value, at, options) => {
    if (value !== undefined) requireAboutAndChannels(layout(options.svc, 'svc', options), `"${at}" exists`, `remove "${at}"`)
    return read(value, at, options)
  }
}

const plainBasePath = urlPath('/svc')
/** Without a trailing `/`: `''` when the option is `'/'`. */
const basePath: Reader<string> = withDefault(DEFAULT_BASE_PATH, (value, at, options) => plainBasePath(value, at, options).replace(/\/+$/, ''))

const AUTH = {
  type: oneOf(['bearer'], '"bearer" (the only scheme supported)'),
  description: nonEmptyText,
  verify: optional(functionOf<SvcVerify>('a function (token, request) => credential')),
  subject: optional(functionOf<NonNullable<SvcAuthOptions['subject']>>('a function (credential) => subject string')),
  scheme: optional(matching(new RegExp(AUTH_SCHEME_PATTERN), 'a scheme word of letters, digits and "-._~+!#$%&\'*^`|" such as "Bearer" or "Token"')),
  scopes: optional(functionOf<NonNullable<SvcAuthOptions['scopes']>>('a function (credential) => array of scope strings')),
  authorizationServers: optional(issuers)
} satisfies ReadersOf<SvcAuthOptions>

const INVOKE = {
  maxSteps: withDefault(DEFAULT_MAX_STEPS, wholeNumber('a whole number of 1 or more')),
  maxResultBytes: withDefault(DEFAULT_MAX_RESULT_BYTES, wholeNumber('a whole number of bytes, 1 or more')),
  /** Milliseconds; 0: no deadline. */
  timeout: withDefault(DEFAULT_INVOKE_TIMEOUT, wholeNumber(`a whole number of milliseconds, 0 (no deadline) to ${MAX_TIMER}`, 0, MAX_TIMER))
} satisfies ReadersOf<Exclude<SvcManifestOptions['invoke'], boolean | undefined>>

const REALTIME = {
  redis: optional(url(['redis:', 'rediss:'], 'a Redis URL such as "redis://127.0.0.1:6379" (redis: or rediss:)')),
  /** Seconds. */
  heartbeat: withDefault(15, (value, at) => typeof value === 'number' && value > 0 && value <= MAX_HEARTBEAT ? value : fail(at, `a number of seconds above 0 and at most ${MAX_HEARTBEAT}`, value)),
  /** 1 MiB. */
  maxBufferBytes: withDefault(1024 * 1024, wholeNumber('a whole number of bytes, 1 or more')),
  /** Milliseconds, as ioredis's own connectTimeout; a timer cannot hold more than MAX_TIMER. */
  connectTimeout: withDefault(5000, wholeNumber(`a whole number of milliseconds, 1 or more and at most ${MAX_TIMER} (e.g. 5000 for 5 s)`, 1, MAX_TIMER)),
  /** Milliseconds. */
  commandTimeout: withDefault(2000, wholeNumber(`a whole number of milliseconds, 1 or more and at most ${MAX_TIMER} (e.g. 2000 for 2 s)`, 1, MAX_TIMER)),
  broker: optional(broker)
} satisfies ReadersOf<SvcRealtimeOptions>

const MCP_LIMITS = {
  /** Distinct channel keys one listen or session may follow. */
  maxSubscriptions: withDefault(100, wholeNumber('a whole number, 1 or more')),
  /** Listens and subscription sessions open at once per subject (per remote address without a credential). */
  maxListensPerSubject: withDefault(8, wholeNumber('a whole number, 1 or more')),
  /** Listens and subscription sessions open at once in all. */
  maxListens: withDefault(1024, wholeNumber('a whole number, 1 or more'))
}

const MCP = {
  path: withDefault('/mcp', urlPath('/mcp')),
  ...MCP_LIMITS
} satisfies ReadersOf<Exclude<SvcManifestOptions['mcp'], boolean | undefined>>

const uiPath = urlPath('/svc/ui', { trailingSlash: false })
const UI = {
  /** Beside the endpoints the page calls, `{basePath}/ui`, by default. */
  path: (value: unknown, at: string, options: Record<string, unknown>) => value === undefined
    ? `${basePath(options.basePath, 'basePath', options)}/ui`
    : uiPath(value, at, options)
} satisfies ReadersOf<Exclude<SvcManifestOptions['ui'], boolean | undefined>>

const NAMES = {
  style: withDefault('path', oneOf(['path', 'rest'], '"path" or "rest"')),
  /** A prefix of static segments, as a plugin's `prefix` is: no params, wildcards or trailing "/". */
  stripPrefix: optional(matching(/^(\/[A-Za-z0-9\-._~%]+)+$/, 'a URL path of static segments such as "/api" (starting with "/", not ending with "/")'))
} satisfies ReadersOf<SvcNamesOptions>

/** The declarations given as options, registered before any `app.svc.type/event/channel` call. */
const declarations = withDefault({}, copyOf('an object that maps names to definitions'))

/** The plugin's options, in the order the message of an unknown key lists them. */
const OPTIONS = {
  svc: layout,
  name: nonEmptyText,
  description: nonEmptyText,
  version: nonEmptyText,
  baseUrl: url(['http:', 'https:'], 'an absolute http(s) URL such as "https://shop.example"'),
  about: optional(onlyInLayout05(text())),
  auth: optional(object(AUTH, 'an object { type: \'bearer\', description, verify?, subject?, scheme?, scopes?, authorizationServers? }')),
  types: declarations,
  events: declarations,
  channels: onlyInLayout05(declarations),
  path: withDefault('/.well-known/svc.json', matching(/^\/[^\s?#]*$/, 'a URL path starting with "/" (no query, fragment or spaces)')),
  maxAge: withDefault(300, wholeNumber('a whole number of seconds, 0 or more', 0)),
  unseenRoutes: withDefault<UnseenRoutesMode>('warn', oneOf(['warn', 'error', 'ignore'], '"warn", "error" or "ignore"')),
  basePath,
  /** `false` when execute and pipeline are off. */
  invoke: toggle(true, object(INVOKE, 'true, false or { maxSteps?, maxResultBytes?, timeout? }')),
  realtime: object(REALTIME, 'an object { redis?, heartbeat?, maxBufferBytes?, connectTimeout?, commandTimeout?, broker? }'),
  /** `false` when the MCP endpoint is off. */
  mcp: toggle(false, object(MCP, 'true, false or { path, maxSubscriptions, maxListensPerSubject, maxListens }')),
  /** `false` when the human page is off. */
  ui: toggle(false, object(UI, 'true, false or { path }')),
  allowedOrigins: withDefault([], origins),
  allowedHosts: withDefault([], hosts),
  names: object(NAMES, 'an object { style?: \'path\' | \'rest\', stripPrefix? }'),
  /** `false`: a route without a description gets one derived from its method and URL, and a warning. */
  requireDescriptions: withDefault(false, flag),
  /** `true` serves `/.well-known/api-catalog` (RFC 9727) and `/llms.txt`. */
  discovery: withDefault(false, flag)
} satisfies ReadersOf<SvcManifestOptions>

type RouteLog = Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>

/**
 * Register options that Fastify itself understands. Fastify ignores them for a plugin wrapped with
 * fastify-plugin, so the plugin applies the log options to its own routes; `prefix` is refused below.
 */
const FASTIFY_OPTIONS: { [K in keyof RouteLog]-?: Reader<RouteLog[K]> } = {
  logLevel: optional(text('a log level name such as "warn"') as Reader<RouteLog['logLevel']>),
  logSerializers: optional(copyOf('an object of serializer functions') as Reader<RouteLog['logSerializers']>)
}
const KNOWN_OPTIONS = [...Object.keys(OPTIONS), ...Object.keys(FASTIFY_OPTIONS)]

export type RealtimeConfig = Read<typeof REALTIME>
export type McpLimits = Read<typeof MCP_LIMITS>
export type InvokeLimits = Read<typeof INVOKE>
export type NamesConfig = Read<typeof NAMES>

/** The plugin options, checked and with defaults applied: what the table reads. */
export type Config = Flat<Omit<Read<typeof OPTIONS>, 'svc'> & {
  layout: SvcLayout
  /** Fastify's `logLevel` and `logSerializers` register options, applied to the plugin's routes. */
  routeLog: RouteLog
}>

export function readOptions (options: Partial<SvcManifestOptions> | undefined): Config {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options)
  if ('prefix' in options) {
    throw new FST_SVC_INVALID_OPTION('"prefix" has no effect on this plugin (it is not encapsulated, so Fastify ignores it). Set path: \'/api/.well-known/svc.json\', or register the plugin inside a plugin that has the prefix.')
  }
  const unknown = unknownKey(options, KNOWN_OPTIONS)
  if (unknown !== undefined) throw new FST_SVC_INVALID_OPTION(`unknown option "${unknown}". Known options: ${Object.keys(OPTIONS).join(', ')}.`)
  const given = options as Record<string, unknown>
  const { svc, ...read } = readFields(OPTIONS, given, undefined, given)
  return { layout: svc, ...read, routeLog: readFields(FASTIFY_OPTIONS, given, undefined, given) }
}
