import type { ReadManifest, ServedManifest } from '../manifest/types.js'
import { freshnessLifetime } from './cache-control.js'
import type { ManifestDiff } from './changes.js'
import { diffManifests } from './diff.js'
import { ManifestClientError } from './errors.js'
import { exchange, readLimits, type HttpResponse } from './http.js'
import { createInvoker, endpointOf, SURF_BASE_PATH, type Invoker } from './invoke.js'
import { readerView } from './reader-view.js'
import { consumeStream, type ChannelState, type StreamOptions, type SubscribeOptions, type SvcEvent } from './streams.js'
import { checksumErrors, checksumMethodOf, schemaErrors } from './verify.js'
import { paginate, type PaginateOptions } from './paginate.js'
import { channelsBeside, DEFAULT_BASE_PATH, endpointsOf } from '../manifest/invocation.js'

export interface ManifestClientOptions {
  /** The manifest's full URL, e.g. `https://shop.example/.well-known/svc.json`. */
  url: string | URL
  /** Default: Node's global `fetch`. */
  fetch?: typeof fetch
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
  /**
   * Milliseconds one `get()`, `execute()` or `pipeline()` may take on the network, redirects and body
   * included. Default 10,000; at most 2,147,483,647.
   */
  timeout?: number
  /** The largest body accepted, manifest or command result, in bytes. Default 8 MiB (8,388,608). */
  maxBodySize?: number
  /**
   * Where `execute` and `pipeline` are called: `{invokeUrl}/execute`, `{invokeUrl}/pipeline`. Default: the
   * endpoints named by the manifest's `Link` header, on the manifest's origin (`/svc/…` when it names none).
   */
  invokeUrl?: string | URL
  /**
   * The credential `get()` sends unless it is given one: the manifest is then the view of that credential,
   * with the commands it may see (a service's hidden commands, docs/auth.md#audiences). Not sent by `execute`
   * and `pipeline`, which take their own.
   */
  token?: string
}

export interface GetOptions {
  /** Aborts the request; `get()` then rejects with `SVC_CLIENT_ABORTED`. */
  signal?: AbortSignal
  /**
   * Sent as `Authorization: <scheme> <token>` (the manifest's `auth.scheme`, `Bearer` when it names none):
   * the view of that credential. Each credential's view is cached on its own. Default: the client's `token`.
   */
  token?: string
}

/**
 * - `fetched`: first download.
 * - `fresh`: served from memory within the response's `max-age`; no request made.
 * - `revalidated`: the server confirmed the cached checksum (304, or 200 with the same checksum).
 * - `changed`: a new manifest with another checksum; `drift` says what changed.
 */
export type ManifestStatus = 'fetched' | 'fresh' | 'revalidated' | 'changed'

export interface ManifestResult {
  /**
   * The manifest as readers use it: what the service served, with what the spec lets it leave out filled in
   * (`events` and `types` empty, `required: false`, the type a `$ref` names, a Surf manifest as layout 1.0).
   */
  manifest: ReadManifest
  /** The manifest exactly as the service served it. */
  served: ServedManifest
  /** `'surf'` when its checksum matches only as Surf computes it (docs/client.md). */
  checksumMethod?: 'surf'
  status: ManifestStatus
  /** The changes from the cached manifest, when `status` is `changed`. */
  drift?: ManifestDiff
}

export interface ManifestClient extends Invoker {
  readonly url: string
  /** The last manifest received and verified, if any, as `ManifestResult.manifest`. */
  readonly manifest: ReadManifest | undefined
  /** The current manifest: from memory while fresh, else from the server. Rejects with a `ManifestClientError`. */
  get (options?: GetOptions): Promise<ManifestResult>
  /**
   * Subscribes to the service's events (all, or `options.events`) and calls `onEvent` for each, reconnecting
   * with backoff when the connection is lost. Resolves when `options.signal` aborts; rejects with a
   * `ManifestClientError` when the first connection fails or the service refuses the subscription.
   */
  subscribe (options: SubscribeOptions, onEvent: (event: SvcEvent) => void | Promise<void>): Promise<void>
  /**
   * Every item of a paginated command (its manifest's `paginated`), page by page, keeping the other params:
   * `for await (const article of client.paginate('articles.list', { tag: 'tea' })) …`. Throws
   * `SVC_CLIENT_NOT_PAGINATED` for a command its manifest does not declare paginated.
   */
  paginate<T = unknown>(command: string, params?: Record<string, unknown>, options?: PaginateOptions): AsyncGenerator<T, void, undefined>
  /** Watches one key of a channel: `onState` gets its latest state first, then every newer one. As `subscribe`. */
  watch (channel: string, key: string, options: StreamOptions, onState: (state: ChannelState) => void | Promise<void>): Promise<void>
}

interface Cached extends Received {
  freshUntil: number
}

/** The most views (one per token) a client keeps. */
const MAX_VIEWS = 16

export function createManifestClient (options: ManifestClientOptions): ManifestClient {
  const { url, fetch, now, timeout, maxBodySize, invokeUrl } = readOptions(options)
  /** The manifest received last, whichever view. */
  let cached: Cached | undefined
  /** Each view received, by the token it was read with (`''`: none). */
  const views = new Map<string, Cached>()
  /** The scheme of the last manifest read (`auth.scheme`, else Bearer): what a token is sent with. */
  let scheme = 'Bearer'
  /** The Link header of the last manifest response: where the invocation endpoints are. */
  let link: string | undefined

  async function get ({ signal, token = options.token }: GetOptions = {}): Promise<ManifestResult> {
    const key = token ?? ''
    const view = views.get(key)
    if (view !== undefined && now() < view.freshUntil) {
      cached = view
      return resultOf(view, 'fresh')
    }
    const headers: Record<string, string> = { accept: 'application/json' }
    if (view !== undefined) headers['if-none-match'] = `"${view.manifest.checksum}"`
    const sent = scheme
    if (token !== undefined) headers.authorization = `${sent} ${token}`
    const result = await exchange(url, { headers, fetch, timeout, maxBodySize, signal }, async (response) => {
      if (response.status === 304 && view !== undefined) {
        link = response.headers.get('link') ?? undefined
        view.freshUntil = now() + freshnessLifetime(response.headers)
        cached = view
        return resultOf(view, 'revalidated')
      }
      if (response.status !== 200) {
        throw new ManifestClientError('SVC_CLIENT_HTTP_STATUS', `GET ${url} answered ${response.status}, expected 200 or 304`, { status: response.status })
      }
      const received = await readManifest(url, response)
      scheme = schemeOf(received.manifest)
      // The token went with a scheme the service does not take (its manifest was not known yet): read again with its own.
      if (token !== undefined && scheme !== sent) return undefined
      // Drift compares like with like: a view with the same credential's previous one.
      const previous = view?.manifest
      cached = { ...received, freshUntil: now() + freshnessLifetime(response.headers) }
      // A client that reads with many tokens in turn keeps the views it read from the service last only.
      views.delete(key)
      if (views.size >= MAX_VIEWS) views.delete(views.keys().next().value as string)
      views.set(key, cached)
      link = response.headers.get('link') ?? undefined
      if (previous === undefined) return resultOf(cached, 'fetched')
      if (previous.checksum === received.manifest.checksum) return resultOf(cached, 'revalidated')
      return { ...resultOf(cached, 'changed'), drift: diffManifests(previous, received.manifest) }
    })
    return result ?? await get({ signal, token })
  }

  const invoker = createInvoker({
    http: { fetch, timeout, maxBodySize },
    manifestUrl: url,
    invokeUrl,
    discovery: async () => {
      if (cached === undefined) await get()
      return { link, basePath: basePathOf(cached!) }
    },
    // With an explicit invokeUrl the manifest may not have been fetched: Bearer, unless get() said otherwise.
    scheme: async () => schemeOf(cached?.manifest)
  })
  /** The events endpoint named by the manifest's `Link` header, on the manifest's origin (else `/svc/events`). */
  async function eventsEndpoint (signal: AbortSignal | undefined): Promise<URL> {
    if (cached === undefined) await get({ signal })
    return new URL(endpointOf(url, link, 'events', basePathOf(cached!)))
  }

  async function subscribe (options: SubscribeOptions, onEvent: (event: SvcEvent) => void | Promise<void>): Promise<void> {
    const target = await eventsEndpoint(options.signal)
    if (options.events !== undefined) target.searchParams.set('events', options.events.join(','))
    await consumeStream(target, { fetch, timeout, maxBodySize }, options, (frame) => onEvent({ id: frame.id as string, event: frame.event as string, data: frame.data }), schemeOf(cached?.manifest))
  }

  async function watch (channel: string, key: string, options: StreamOptions, onState: (state: ChannelState) => void | Promise<void>): Promise<void> {
    const events = await eventsEndpoint(options.signal)
    const channels = (cached?.manifest as { channels?: Record<string, unknown> } | undefined)?.channels
    if (channels === undefined || !Object.hasOwn(channels, channel)) {
      const declared = channels === undefined ? 'its manifest (layout 1.0) has no channels' : `it declares ${Object.keys(channels).map((name) => `"${name}"`).join(', ') || 'none'}`
      throw new ManifestClientError('SVC_CLIENT_NO_CHANNEL', `${url} has no channel "${channel}": ${declared}.`)
    }
    // The manifest's Link names the channels' base; a server that does not keeps them beside the events endpoint.
    const base = endpointsOf(url, link).channels ?? channelsBeside(events.href)
    const target = new URL(`${base}/${encodeURIComponent(channel)}/${encodeURIComponent(key)}`)
    await consumeStream(target, { fetch, timeout, maxBodySize }, options, (frame) => onState(frame.data as ChannelState), schemeOf(cached?.manifest))
  }

  return {
    url,
    get manifest () { return cached?.manifest },
    get,
    execute: invoker.execute,
    stream: invoker.stream,
    pipeline: invoker.pipeline,
    // The view of the token the pages are read with: a hidden paginated command is in that view only.
    paginate: (command, params, options) => paginate(async () => (await get({ token: options?.token })).manifest, invoker.execute, command, params, options),
    subscribe,
    watch
  }
}

interface Config {
  url: string
  fetch: typeof fetch
  now: () => number
  timeout: number
  maxBodySize: number
  invokeUrl?: string
}

function readOptions (options: ManifestClientOptions): Config {
  const { url, fetch = globalThis.fetch, now = Date.now, invokeUrl } = options ?? {}
  if (!isHttpUrl(url)) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', `url must be an absolute http(s) URL of a manifest; got ${JSON.stringify(url) ?? 'nothing'}`)
  }
  if (invokeUrl !== undefined && !isHttpUrl(invokeUrl)) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', `invokeUrl must be an absolute http(s) URL such as "https://shop.example/svc"; got ${JSON.stringify(invokeUrl)}`)
  }
  if (typeof fetch !== 'function') throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', 'fetch must be a function like the global fetch')
  if (typeof now !== 'function') throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', 'now must be a function returning milliseconds')
  return {
    url: new URL(String(url)).href,
    fetch,
    now,
    ...readLimits(options),
    invokeUrl: invokeUrl === undefined ? undefined : new URL(String(invokeUrl)).href
  }
}

function isHttpUrl (url: unknown): boolean {
  return URL.canParse(String(url)) && /^https?:$/.test(new URL(String(url)).protocol)
}

/** A manifest received and verified: as served, as readers use it, and how its checksum matched. */
interface Received {
  served: ServedManifest
  manifest: ReadManifest
  checksumMethod?: 'surf'
}

function resultOf (received: Received, status: ManifestStatus): ManifestResult {
  const { served, manifest, checksumMethod } = received
  return checksumMethod === undefined ? { manifest, served, status } : { manifest, served, checksumMethod, status }
}

/** Where the endpoints are when the manifest's `Link` names none: `/surf` for a Surf manifest, else `/svc`. */
function basePathOf (received: Received): string {
  // A manifest a reader took without `svc` is a Surf manifest.
  return received.served.svc === undefined ? SURF_BASE_PATH : DEFAULT_BASE_PATH
}

/**
 * Reads, parses and verifies a 200 body as a reader does (docs/client.md, verifyManifest: what the spec allows, Surf's manifest
 * and checksum included). Throws without touching the cache when it is not a valid manifest.
 */
async function readManifest (url: string, response: HttpResponse): Promise<Received> {
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (cause) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_JSON', `GET ${url} answered 200 with a body that is not JSON`, { cause })
  }
  const invalid = schemaErrors(body)
  if (invalid.length > 0) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_MANIFEST', `GET ${url} answered 200 with an invalid manifest: ${invalid.join('; ')}`, { errors: invalid })
  }
  const served = body as ServedManifest
  const method = checksumMethodOf(served)
  if (method === undefined) {
    const errors = checksumErrors(served, false)
    throw new ManifestClientError('SVC_CLIENT_CHECKSUM_MISMATCH', `GET ${url} answered 200 with a manifest whose checksum does not match its commands; refused`, { errors })
  }
  const manifest = readerView(served)
  return method === 'surf' ? { served, manifest, checksumMethod: method } : { served, manifest }
}

/** The word a token is sent with: the manifest's `auth.scheme` (e.g. `Token`), else `Bearer`. */
function schemeOf (manifest: ReadManifest | undefined): string {
  return manifest?.auth?.scheme ?? 'Bearer'
}
