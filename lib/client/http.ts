import { ManifestClientError, networkReason } from './errors.js'

/**
 * The HTTP exchange every request of the client and the CLI goes through: one time limit from sending the
 * request to the last byte of the body, the caller's `AbortSignal`, a cap on the body read, and redirects
 * followed only within the origin the caller named (docs/client.md: the client invokes commands on the origin it
 * fetched the manifest from, so a redirect must not move it elsewhere).
 */

/** How long one exchange may take, in milliseconds, unless the caller says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000
/** The largest body read, in bytes (after content decoding), unless the caller says otherwise: 8 MiB. */
export const DEFAULT_MAX_BODY_SIZE = 8 * 1024 * 1024
/** The longest timeout `setTimeout` can hold. */
export const MAX_TIMEOUT_MS = 2_147_483_647
/** Same-origin redirects followed before the exchange fails. */
export const MAX_REDIRECTS = 5

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

export interface HttpRequest {
  /** Default `'GET'`. */
  method?: string
  headers?: Record<string, string>
  body?: string
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Milliseconds for the whole exchange, redirects and body included. Default `DEFAULT_TIMEOUT_MS`. */
  timeout?: number
  /** Bytes of body `bytes()` and `text()` read at most. Default `DEFAULT_MAX_BODY_SIZE`. */
  maxBodySize?: number
  /** Aborts the exchange; the error is `SVC_CLIENT_ABORTED` with the signal's reason as `cause`. */
  signal?: AbortSignal
  /**
   * Default `true`: same-origin redirects are followed (another origin is always refused). `false` hands
   * a redirect to `handle` as it is, for a request whose body or credentials must reach the URL named or
   * nowhere.
   */
  followRedirects?: boolean
}

export interface HttpResponse {
  /** The URL that answered: the one requested, or where same-origin redirects led. */
  readonly url: string
  readonly status: number
  readonly headers: Headers
  /**
   * The whole body (empty when there is none); read it once, by `bytes()`, `text()` or `stream()`. More
   * than `maxBodySize` bytes: `SVC_CLIENT_BODY_TOO_LARGE`.
   */
  bytes (): Promise<Uint8Array>
  /** The body as UTF-8 text, a leading byte order mark dropped, as `Response#text()` reads it. */
  text (): Promise<string>
  /**
   * The body as it arrives, for a response that stays open (an event stream). Taking it stops the time
   * limit (unless `timed`: then it runs on, to the end of the exchange) and the size cap; the caller's
   * signal still aborts it, and the request is aborted when `handle` returns. A read that fails rejects with the
   * exchange's own error: `SVC_CLIENT_TIMEOUT`, `SVC_CLIENT_ABORTED` or `SVC_CLIENT_NETWORK`.
   */
  stream (options?: { timed?: boolean }): ReadableStream<Uint8Array>
}

/**
 * Sends one request and hands the response to `handle` once its headers arrive. The time limit runs until
 * `handle` settles, so reading the body is inside it. When `handle` settles, whatever it left of the body is
 * cancelled and the timer cleared: nothing outlives the call.
 *
 * Rejects with a `ManifestClientError`: `SVC_CLIENT_TIMEOUT`, `SVC_CLIENT_ABORTED`, `SVC_CLIENT_NETWORK`,
 * `SVC_CLIENT_REDIRECT` (to another origin, an unreadable `Location`, or more than `MAX_REDIRECTS`),
 * `SVC_CLIENT_BODY_TOO_LARGE`; or with what `handle` throws.
 */
export async function exchange<T> (url: string, request: HttpRequest, handle: (response: HttpResponse) => Promise<T>): Promise<T> {
  const call = new Exchange(url, request)
  try {
    return await handle(await call.send())
  } finally {
    await call.end()
  }
}

/** An exchange whose response is read by someone who cannot do it inside a callback (an async generator). */
export interface OpenExchange {
  response: HttpResponse
  /** Ends the exchange as `exchange` does when `handle` settles: the body left unread is cancelled, the request aborted. */
  end: () => Promise<void>
}

/**
 * Sends one request as `exchange` does and resolves once its headers arrive; the caller must call `end()`
 * (in a `finally`) when done with the response. A failure to send ends the exchange before it rejects.
 */
export async function openExchange (url: string, request: HttpRequest): Promise<OpenExchange> {
  const call = new Exchange(url, request)
  try {
    return { response: await call.send(), end: async () => await call.end() }
  } catch (error) {
    await call.end()
    throw error
  }
}

/** A duration in milliseconds as people read it: `10 s`, `1.5 s`, `250 ms`. */
export function formatDuration (ms: number): string {
  return ms >= 1000 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`
}

class Exchange {
  readonly #url: URL
  readonly #what: string
  readonly #origin: string
  readonly #request: HttpRequest
  readonly #timeout: number
  readonly #controller = new AbortController()
  #timer: NodeJS.Timeout | undefined
  #timedOut = false
  #response: Response | undefined
  #bodyTaken = false
  readonly #onCallerAbort = (): void => this.#controller.abort()

  constructor (url: string, request: HttpRequest) {
    this.#url = new URL(url)
    this.#what = `${request.method ?? 'GET'} ${url}`
    this.#origin = this.#url.origin
    this.#request = { ...request }
    this.#timeout = request.timeout ?? DEFAULT_TIMEOUT_MS
  }

  async send (): Promise<HttpResponse> {
    const { signal } = this.#request
    if (signal?.aborted === true) throw this.#failure(signal.reason)
    signal?.addEventListener('abort', this.#onCallerAbort, { once: true })
    this.#timer = setTimeout(() => {
      this.#timedOut = true
      this.#controller.abort()
    }, this.#timeout)
    let url = this.#url
    let { method = 'GET', headers = {}, body } = this.#request
    let response = await this.#fetch(url, method, headers, body)
    for (let redirects = 0; this.#follows(response); redirects++) {
      await response.body?.cancel().catch(ignore)
      if (redirects === MAX_REDIRECTS) {
        throw new ManifestClientError('SVC_CLIENT_REDIRECT', `${this.#what} redirected more than ${MAX_REDIRECTS} times; gave up`)
      }
      url = this.#redirectTarget(response.headers.get('location')!, url)
      // As fetch does: a 303 (but to a HEAD), and a 301 or 302 to a POST, continue as a GET without the body.
      if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET'
        body = undefined
        headers = withoutBodyHeaders(headers)
      }
      response = await this.#fetch(url, method, headers, body)
    }
    return this.#wrap(url.href, response)
  }

  #follows (response: Response): boolean {
    return (this.#request.followRedirects ?? true) && REDIRECT_STATUSES.has(response.status) && response.headers.has('location')
  }

  async end (): Promise<void> {
    clearTimeout(this.#timer)
    this.#request.signal?.removeEventListener('abort', this.#onCallerAbort)
    const body = this.#response?.body
    if (body === null || body === undefined) return
    // A body handed out as a stream is locked by its reader: aborting the request ends it.
    if (this.#bodyTaken) this.#controller.abort()
    else await body.cancel().catch(ignore)
  }

  async #fetch (url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<Response> {
    const fetchFunction = this.#request.fetch ?? globalThis.fetch
    try {
      this.#response = await fetchFunction(url.href, { method, headers, body, redirect: 'manual', signal: this.#controller.signal })
    } catch (error) {
      throw this.#failure(error)
    }
    this.#checkOrigin(this.#response.url)
    return this.#response
  }

  /** A `fetch` of the caller's may follow redirects itself: what answered must still be the same origin. */
  #checkOrigin (answeredUrl: string): void {
    if (answeredUrl === '' || !URL.canParse(answeredUrl) || new URL(answeredUrl).origin === this.#origin) return
    throw this.#crossOrigin(answeredUrl)
  }

  #redirectTarget (location: string, from: URL): URL {
    if (!URL.canParse(location, from.href)) {
      throw new ManifestClientError('SVC_CLIENT_REDIRECT', `${this.#what} redirected to ${JSON.stringify(location)}, which is not a URL`)
    }
    const target = new URL(location, from)
    if (target.origin !== this.#origin) throw this.#crossOrigin(target.href)
    return target
  }

  #crossOrigin (target: string): ManifestClientError {
    return new ManifestClientError('SVC_CLIENT_REDIRECT', `${this.#what} redirected to ${target}, another origin; refused: the client only talks to ${this.#origin}`)
  }

  #wrap (url: string, response: Response): HttpResponse {
    const bytes = async (): Promise<Uint8Array> => await this.#readBody(response)
    return {
      url,
      status: response.status,
      headers: response.headers,
      bytes,
      text: async () => new TextDecoder().decode(await bytes()),
      stream: ({ timed } = {}) => {
        if (timed !== true) clearTimeout(this.#timer)
        this.#bodyTaken = true
        if (response.body === null) return new ReadableStream({ start: (controller) => controller.close() })
        // A read that fails says why, as every other failure of the exchange does: the time limit, the
        // caller's signal, or the network.
        const reader = response.body.getReader()
        return new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            try {
              const chunk = await reader.read()
              if (chunk.done) controller.close()
              else controller.enqueue(chunk.value)
            } catch (error) {
              controller.error(this.#failure(error))
            }
          }
        }, { highWaterMark: 0 })
      }
    }
  }

  /** Reads the body chunk by chunk and stops as soon as it passes the cap: a huge body is never buffered. */
  async #readBody (response: Response): Promise<Uint8Array> {
    const limit = this.#request.maxBodySize ?? DEFAULT_MAX_BODY_SIZE
    const declared = Number(response.headers.get('content-length'))
    if (declared > limit) throw this.#tooLarge(limit, `declares ${declared} bytes`)
    if (response.body === null) return new Uint8Array(0)
    const chunks: Uint8Array[] = []
    let size = 0
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength
        if (size > limit) throw this.#tooLarge(limit, `sent more than ${limit} bytes`)
        chunks.push(chunk)
      }
    } catch (error) {
      throw this.#failure(error)
    }
    return Buffer.concat(chunks, size)
  }

  #tooLarge (limit: number, what: string): ManifestClientError {
    return new ManifestClientError('SVC_CLIENT_BODY_TOO_LARGE', `${this.#what} answered with a body that ${what}, over the limit of ${limit} bytes (maxBodySize); refused`)
  }

  /** What went wrong, by what stopped the exchange: the time limit, the caller, or the network. */
  #failure (error: unknown): ManifestClientError {
    if (error instanceof ManifestClientError) return error
    if (this.#timedOut) {
      return new ManifestClientError('SVC_CLIENT_TIMEOUT', `${this.#what} did not complete within ${formatDuration(this.#timeout)} (timeout); gave up`)
    }
    const { signal } = this.#request
    if (signal?.aborted === true) {
      return new ManifestClientError('SVC_CLIENT_ABORTED', `${this.#what} was aborted by the caller's signal`, { cause: signal.reason })
    }
    return new ManifestClientError('SVC_CLIENT_NETWORK', `${this.#what} failed: ${networkReason(error)}`, { cause: error })
  }
}

/** Cancelling a body that already failed rejects with that failure, which no one is waiting for. */
function ignore (): void {}

function withoutBodyHeaders (headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!/^content-/i.test(name)) kept[name] = value
  }
  return kept
}

/**
 * Checks the limits a caller passes; throws `SVC_CLIENT_INVALID_OPTION` naming the option. `timeout` is in
 * milliseconds, at most `MAX_TIMEOUT_MS`; `maxBodySize` a positive whole number of bytes.
 */
export function readLimits (options: { timeout?: unknown, maxBodySize?: unknown }): { timeout: number, maxBodySize: number } {
  const { timeout = DEFAULT_TIMEOUT_MS, maxBodySize = DEFAULT_MAX_BODY_SIZE } = options
  if (typeof timeout !== 'number' || !(timeout > 0 && timeout <= MAX_TIMEOUT_MS)) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', `timeout must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS}; got ${String(timeout)}`)
  }
  if (typeof maxBodySize !== 'number' || !Number.isSafeInteger(maxBodySize) || maxBodySize <= 0) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_OPTION', `maxBodySize must be a whole number of bytes above 0; got ${String(maxBodySize)}`)
  }
  return { timeout, maxBodySize }
}
