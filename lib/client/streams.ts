import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { ManifestClientError } from './errors.js'
import { exchange, type HttpResponse } from './http.js'

export interface StreamOptions {
  /** Sent as `Authorization: <scheme> <token>`, the scheme the manifest's `auth` names (`Bearer` when it names none). */
  token?: string
  /** Aborting it ends the subscription: the promise resolves. */
  signal?: AbortSignal
  /** Waits between reconnections: `initialDelay` ms (default 500), doubling up to `maxDelay` (default 30,000). */
  reconnect?: { initialDelay?: number, maxDelay?: number }
  /**
   * Reconnects when nothing, not even a heartbeat, arrived for this many ms on an open stream: a connection
   * a proxy dropped silently. Default 45,000 (three of the server's default heartbeats). Opening the stream
   * is bound by the client's `timeout`.
   */
  idleTimeout?: number
}

export interface SubscribeOptions extends StreamOptions {
  /** Event names; default every event of the service. */
  events?: string[]
}

/** One event as the service sent it. */
export interface SvcEvent {
  /** The frame id; it only grows on a subscription, across reconnections too. */
  id: string
  event: string
  data: unknown
}

/** One state of a channel key. */
export interface ChannelState {
  version: number
  state: unknown
}

const DEFAULT_INITIAL_DELAY = 500
const DEFAULT_MAX_DELAY = 30_000
const DEFAULT_IDLE_TIMEOUT = 45_000

interface Frame { id?: string, event?: string, data: unknown }

/**
 * The client's HTTP settings: its `fetch`, the time limit of each request, and the body cap, which on a
 * stream bounds each frame.
 */
export interface StreamHttp {
  fetch: typeof fetch
  timeout: number
  maxBodySize: number
}

/**
 * Reads a Server-Sent Events stream and calls `onFrame` with each frame, in order, awaiting it (so a slow
 * handler slows the reading rather than piling frames up). Each connection is one exchange of the
 * client's HTTP layer: its time limit, same-origin redirects and abort handling apply until the stream
 * opens. The first connection must succeed: a failure or an answer other than a 200 stream rejects.
 * Afterwards a lost connection, a stream the server ended, an idle one or a 5xx answer is retried with
 * exponential backoff, sending `Last-Event-ID`; a 4xx answer (e.g. an expired token) rejects, and so do an
 * error thrown by `onFrame` and a frame over `maxBodySize` (`SVC_CLIENT_TOO_LARGE`). Resolves when `signal`
 * aborts.
 */
export async function consumeStream (url: URL, http: StreamHttp, options: StreamOptions, onFrame: (frame: Frame) => void | Promise<void>, scheme = 'Bearer'): Promise<void> {
  const { signal, token } = options
  const initialDelay = options.reconnect?.initialDelay ?? DEFAULT_INITIAL_DELAY
  const maxDelay = options.reconnect?.maxDelay ?? DEFAULT_MAX_DELAY
  const idleTimeout = options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT
  let lastEventId: string | undefined
  let connected = false
  let failures = 0
  while (!aborted(signal)) {
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (token !== undefined) headers.authorization = `${scheme} ${token}`
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    try {
      await exchange(url.href, { headers, ...http, signal }, async (response) => {
        await opened(response, connected)
        connected = true
        failures = 0
        await read(response, http.maxBodySize, idleTimeout, (frame) => {
          if (frame.id !== undefined) lastEventId = frame.id
          return onFrame(frame)
        })
      })
    } catch (error) {
      if (aborted(signal)) return
      // Before the first stream nothing is retried: only the HTTP layer's own errors, or a refusal, get here.
      if (!connected || !isRetryable(error)) throw error
    }
    await sleep(Math.min(maxDelay, initialDelay * 2 ** failures++), signal)
  }
}

/** Resolves for a 200 event stream; otherwise throws what the caller sees (retryable: a 5xx once connected before). */
async function opened (response: HttpResponse, connected: boolean): Promise<void> {
  const type = String(response.headers.get('content-type'))
  if (response.status === 200 && type.startsWith('text/event-stream')) return
  const what = `GET ${response.url}`
  if (response.status === 200) throw new ManifestClientError('SVC_CLIENT_NOT_A_STREAM', `${what} answered 200 with content-type ${type}, not text/event-stream`)
  const refusal = new ManifestClientError('SVC_CLIENT_HTTP_STATUS', `${what} answered ${response.status}${messageOf(await response.text())}`, { status: response.status })
  throw connected && response.status >= 500 ? new Retryable(refusal) : refusal
}

/**
 * Reads frames until the stream ends, or nothing arrived for `idleTimeout` ms (then the exchange, ending,
 * aborts the connection). Only a failed read may be retried. A frame over `maxBodySize` ends the stream
 * with `SVC_CLIENT_TOO_LARGE` (see `messagesOf`), which is not retried (the server sent it, and asked again
 * with `Last-Event-ID` it would send it again).
 */
async function read (response: HttpResponse, maxBodySize: number, idleTimeout: number, onFrame: (frame: Frame) => void | Promise<void>): Promise<void> {
  const next = async (reader: ChunkReader): Promise<Chunk | undefined> => {
    try {
      return await within(reader.read(), idleTimeout)
    } catch (error) {
      throw new Retryable(error as Error)
    }
  }
  const messages = messagesOf(response, {
    maxBodySize,
    what: `GET ${response.url}`,
    tooLarge: 'closed and not reopened, as the service would send it again. Raise maxBodySize if its frames are this large',
    next
  })
  for await (const message of messages) await onFrame(frameOf(message))
}

type ChunkReader = ReadableStreamDefaultReader<Uint8Array>
type Chunk = Awaited<ReturnType<ChunkReader['read']>>

export interface MessageReading {
  /** The largest frame, in bytes. */
  maxBodySize: number
  /** The request, as errors name it: `GET https://…`. */
  what: string
  /** What the error of a frame over `maxBodySize` says after naming the limit. */
  tooLarge: string
  /** Reads one chunk; undefined: stop reading, as at the end. Default: the reader's `read()`. */
  next?: (reader: ChunkReader) => Promise<Chunk | undefined>
  /** Keep the exchange's time limit running while the body is read (`HttpResponse.stream`). */
  timed?: boolean
}

/**
 * The SSE messages of a response, in order, as they arrive; the body is read only as fast as they are
 * taken. A frame over `maxBodySize` is never fed to the parser past the limit, so the parser holds at most
 * that much however long the server goes on: the messages before it are delivered, then the stream ends
 * with `SVC_CLIENT_TOO_LARGE`.
 */
export async function * messagesOf (response: HttpResponse, reading: MessageReading): AsyncGenerator<EventSourceMessage, void> {
  const { maxBodySize, next = async (reader) => await reader.read() } = reading
  const messages: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => messages.push(message) })
  const decoder = new TextDecoder()
  const frame = new FrameSize(maxBodySize)
  const reader = response.stream({ timed: reading.timed }).getReader()
  while (true) {
    const chunk = await next(reader)
    if (chunk === undefined || chunk.done) return
    const over = frame.overflow(chunk.value)
    parser.feed(decoder.decode(over === -1 ? chunk.value : chunk.value.subarray(0, over), { stream: true }))
    yield * messages.splice(0)
    if (over !== -1) {
      throw new ManifestClientError('SVC_CLIENT_TOO_LARGE', `${reading.what} sent an event-stream frame of more than ${maxBodySize} bytes (maxBodySize); ${reading.tooLarge}`)
    }
  }
}

const LF = 0x0a
const CR = 0x0d

/**
 * The size of the SSE frame being received, counted on the bytes as they arrive: its lines, line endings
 * included, up to the blank line that ends it (which is not counted). Lines end as the parser ends them, at
 * CRLF, LF or CR, so a server cannot make a frame look ended to the count and not to the parser. A frame
 * holds every line of it, so no line can be longer either.
 */
class FrameSize {
  #size = 0
  #atLineStart = true
  /** The last byte was a CR: an LF now completes that line ending rather than making a blank line. */
  #afterCR = false

  constructor (private readonly limit: number) {}

  /** The offset in `chunk` of the first byte that takes the current frame over the limit; -1 when none does. */
  overflow (chunk: Uint8Array): number {
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index]
      if (byte === LF && this.#afterCR) {
        this.#afterCR = false
        // The CRLF of a blank line: the frame has ended already.
        if (this.#size === 0) continue
        this.#size++
      } else if (byte === LF || byte === CR) {
        this.#afterCR = byte === CR
        if (this.#atLineStart) {
          this.#size = 0
          continue
        }
        this.#size++
        this.#atLineStart = true
      } else {
        this.#afterCR = false
        this.#atLineStart = false
        this.#size++
      }
      if (this.#size > this.limit) return index
    }
    return -1
  }
}

/** `pending`, or undefined when it did not settle within `ms`. */
async function within<T> (pending: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const idle = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), ms) })
  try {
    return await Promise.race([pending, idle])
  } finally {
    clearTimeout(timer)
  }
}

function frameOf (message: EventSourceMessage): Frame {
  let data: unknown
  try {
    data = JSON.parse(message.data)
  } catch (cause) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_JSON', `a ${String(message.event)} frame carries data that is not JSON`, { cause })
  }
  return { id: message.id, event: message.event, data }
}

/** An error after which the stream, once it was open, may be opened again. */
class Retryable extends Error {
  constructor (cause: Error) {
    super(cause.message, { cause })
  }
}

/** A lost or idle connection, a 5xx; and, from the HTTP layer, a network failure or a time limit reached while opening. */
function isRetryable (error: unknown): boolean {
  if (error instanceof Retryable) return true
  const { code } = error as { code?: unknown }
  return code === 'SVC_CLIENT_NETWORK' || code === 'SVC_CLIENT_TIMEOUT'
}

/** The server's own error message (Fastify's error JSON), for the error the caller sees. */
function messageOf (body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown }
    return typeof message === 'string' ? `: ${message}` : ''
  } catch {
    return ''
  }
}

function aborted (signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep (ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
