import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { ManifestClientError, networkReason } from './errors.js'

export interface StreamOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string
  /** Aborting it ends the subscription: the promise resolves. */
  signal?: AbortSignal
  /** Waits between reconnections: `initialDelay` ms (default 500), doubling up to `maxDelay` (default 30,000). */
  reconnect?: { initialDelay?: number, maxDelay?: number }
  /**
   * Reconnects when nothing, not even a heartbeat, arrived for this many ms: a connection a proxy dropped
   * silently. Default 45,000 (three of the server's default heartbeats).
   */
  idleTimeout?: number
  /** Default: Node's global `fetch`. */
  fetch?: typeof fetch
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
 * Reads a Server-Sent Events stream and calls `onFrame` with each frame, in order, awaiting it (so a slow
 * handler slows the reading rather than piling frames up). The first connection must succeed: a network
 * error or an answer other than 200 rejects. Afterwards a lost connection, a stream the server ended or a
 * 5xx answer is retried with exponential backoff, sending `Last-Event-ID`; a 4xx answer (e.g. an expired
 * token) rejects, and so does an error thrown by `onFrame`. Resolves when `signal` aborts.
 */
export async function consumeStream (url: URL, options: StreamOptions, onFrame: (frame: Frame) => void | Promise<void>): Promise<void> {
  const { signal, token, fetch: fetchStream = globalThis.fetch } = options
  const initialDelay = options.reconnect?.initialDelay ?? DEFAULT_INITIAL_DELAY
  const maxDelay = options.reconnect?.maxDelay ?? DEFAULT_MAX_DELAY
  const idleTimeout = options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT
  let lastEventId: string | undefined
  let connected = false
  let failures = 0
  while (!aborted(signal)) {
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    // One controller per connection: aborted when idle for too long, and on the way out whatever the reason.
    const connection = new Connection(idleTimeout, signal)
    try {
      const response = await open(fetchStream, url, headers, connection.signal, connected)
      if (response !== undefined) {
        connected = true
        failures = 0
        await read(response, connection, (frame) => {
          if (frame.id !== undefined) lastEventId = frame.id
          return onFrame(frame)
        })
      }
    } catch (error) {
      if (aborted(signal)) return
      if (!(error instanceof Retryable)) throw error
      if (!connected) throw error.cause
    } finally {
      connection.close()
    }
    await sleep(Math.min(maxDelay, initialDelay * 2 ** failures++), signal)
  }
}

/** The response of a 200 stream; undefined for a 5xx answer once connected before (worth retrying). */
async function open (fetchStream: typeof fetch, url: URL, headers: Record<string, string>, signal: AbortSignal, connected: boolean): Promise<Response | undefined> {
  let response: Response
  try {
    response = await fetchStream(url, { headers, signal })
  } catch (error) {
    throw new Retryable(new ManifestClientError('SVC_CLIENT_NETWORK', `GET ${url.href} failed: ${networkReason(error)}`, { cause: error }))
  }
  const type = String(response.headers.get('content-type'))
  if (response.status === 200 && type.startsWith('text/event-stream')) return response
  const text = await response.text()
  if (connected && response.status >= 500) return undefined
  if (response.status === 200) throw new ManifestClientError('SVC_CLIENT_NOT_A_STREAM', `GET ${url.href} answered 200 with content-type ${type}, not text/event-stream`)
  throw new ManifestClientError('SVC_CLIENT_HTTP_STATUS', `GET ${url.href} answered ${response.status}${messageOf(text)}`, { status: response.status })
}

/** Reads frames until the stream ends. Only a failed read (connection lost, idle) may be retried. */
async function read (response: Response, connection: Connection, onFrame: (frame: Frame) => void | Promise<void>): Promise<void> {
  const messages: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => messages.push(message) })
  const decoder = new TextDecoder()
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  while (true) {
    let chunk: Awaited<ReturnType<typeof reader.read>>
    try {
      chunk = await reader.read()
    } catch (error) {
      throw new Retryable(error as Error)
    }
    if (chunk.done) return
    connection.active()
    parser.feed(decoder.decode(chunk.value, { stream: true }))
    for (const message of messages.splice(0)) await onFrame(frameOf(message))
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

/** An error after which the stream may be opened again; `cause` is what the caller sees if it is not. */
class Retryable extends Error {
  declare readonly cause: Error
  constructor (cause: Error) {
    super(cause.message, { cause })
  }
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

/** One connection's abort signal: the caller's, or nothing arriving for `timeout` ms, or `close()`. */
class Connection {
  private readonly controller = new AbortController()
  private timer: NodeJS.Timeout
  readonly signal: AbortSignal

  constructor (private readonly timeout: number, caller: AbortSignal | undefined) {
    this.signal = caller === undefined ? this.controller.signal : AbortSignal.any([caller, this.controller.signal])
    this.timer = this.start()
  }

  /** Something arrived: the connection is alive. */
  active (): void {
    clearTimeout(this.timer)
    this.timer = this.start()
  }

  close (): void {
    clearTimeout(this.timer)
    this.controller.abort()
  }

  private start (): NodeJS.Timeout {
    return setTimeout(() => this.controller.abort(), this.timeout)
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
