import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { EVENT_STREAM_HEAD } from '../util/event-stream.js'

/** An SSE comment: keeps proxies and clients from timing the stream out, and lets dead sockets surface. */
export const HEARTBEAT = ':\n\n'

/**
 * The frames of one event message. Each stream numbers its own frames, so the `id` line differs between
 * subscribers that joined at different times; subscribers with the same next id (those that connected
 * together, the usual case) share one frame, so an emit to many builds few strings. `JSON.stringify` never
 * emits a line break, so the payload is always one `data` line.
 */
export class EventFrames {
  private readonly tail: string
  private id = -1
  private frame = ''

  constructor (event: string, json: string) {
    this.tail = `event: ${event}\ndata: ${json}\n\n`
  }

  /** The frame with this `id`; the last one built is reused. */
  withId (id: number): string {
    if (id !== this.id) {
      this.id = id
      this.frame = `id: ${id}\n${this.tail}`
    }
    return this.frame
  }
}

/** A channel frame; its `id` is the state's version, which only grows on a stream. */
export function stateFrame (version: number, stateJson: string): string {
  return `id: ${version}\nevent: state\ndata: {"version":${version},"state":${stateJson}}\n\n`
}

/** The longest `id` a stream can write (a version, or an event id past a client's `Last-Event-ID`): 16 digits. */
const LONGEST_ID = Number.MAX_SAFE_INTEGER

/** Bytes of an event's frame without its payload, with the longest id. */
export function eventFrameOverhead (event: string): number {
  return Buffer.byteLength(new EventFrames(event, '').withId(LONGEST_ID))
}

/** Bytes of a channel frame without its state, with the longest version. */
export const STATE_FRAME_OVERHEAD = Buffer.byteLength(stateFrame(LONGEST_ID, ''))

/**
 * The size in bytes of a frame of `overhead` bytes around `json` when it is larger than `limit`, else
 * undefined. A frame larger than `maxBufferBytes` would disconnect every subscriber, reading or not.
 * Each UTF-16 unit of `json` is 1 to 3 bytes in UTF-8, so it is scanned only when its length leaves the
 * answer in doubt: a payload well under the limit costs nothing.
 */
export function oversizedFrame (overhead: number, json: string, limit: number): number | undefined {
  if (overhead + json.length * 3 <= limit) return undefined
  const bytes = overhead + Buffer.byteLength(json)
  return bytes > limit ? bytes : undefined
}

export interface StreamLimits {
  /** Bytes a stream may hold unsent before it is dropped. */
  maxBufferBytes: number
}

/**
 * One open Server-Sent Events response. Writes go straight to the socket; a subscriber that does not
 * read is dropped once more than `maxBufferBytes` wait in its buffers, so it neither slows the others
 * nor makes memory grow.
 */
export class SseStream {
  private ended = false

  constructor (
    private readonly response: ServerResponse,
    private readonly limits: StreamLimits,
    /** Called once, when the response closes for any reason (client gone, dropped, app closing); never for a stream that was closed from the start. */
    onClose: () => void,
    /** Called when the stream is dropped for not reading. */
    private readonly onDrop: (bufferedBytes: number) => void
  ) {
    // The client may leave while the request is still being authenticated: then nothing is ever sent.
    if (response.destroyed) {
      this.ended = true
      return
    }
    response.once('close', () => {
      this.ended = true
      onClose()
    })
  }

  get open (): boolean {
    return !this.ended
  }

  write (text: string): void {
    if (this.ended) return
    this.response.write(text)
    // Bytes queued in Node for this response and its socket, beyond what the kernel took.
    const buffered = this.response.writableLength
    if (buffered > this.limits.maxBufferBytes) {
      this.ended = true
      this.onDrop(buffered)
      this.response.destroy()
    }
  }

  /**
   * Ends the stream for the app's shutdown: cleanly when everything written was sent, else at once
   * (a client that does not read would otherwise hold `app.close()` open).
   */
  end (): void {
    if (this.ended) return
    this.ended = true
    if (this.response.writableLength > 0) this.response.destroy()
    else this.response.end()
  }
}

/**
 * Takes the response over from Fastify and sends the SSE headers. Headers already set on the reply
 * (by CORS or other hooks) are kept. `connection: close` on HTTP/1 makes the socket close with the stream,
 * so ending a stream never leaves an idle connection that would hold `app.close()` open.
 */
export function startEventStream (request: FastifyRequest, reply: FastifyReply): ServerResponse {
  reply.hijack()
  const response = reply.raw as ServerResponse
  const headers: Record<string, string | number | string[]> = {
    ...(reply.getHeaders() as Record<string, string | number | string[]>),
    ...EVENT_STREAM_HEAD
  }
  if (request.raw.httpVersionMajor < 2) headers.connection = 'close'
  response.writeHead(200, headers)
  response.flushHeaders()
  return response
}
