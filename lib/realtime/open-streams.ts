import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_PAYLOAD_TOO_LARGE } from '../errors.js'
import type { RealtimeConfig } from '../options.js'
import { REFUSALS, type Phases } from '../lifecycle.js'
import { HEARTBEAT, SseStream, oversizedFrame, startEventStream } from './stream.js'

/**
 * The open streams of one app, their heartbeat, and the frame limit they share: no frame may be larger
 * than `maxBufferBytes`, which would disconnect every subscriber, reading or not. From the app's `preClose`
 * on (its lifecycle says so), a new stream is refused; `endAll()` ends the open ones.
 */
export class OpenStreams {
  private readonly streams = new Set<SseStream>()
  private readonly heartbeat: NodeJS.Timeout

  constructor (private readonly settings: RealtimeConfig, private readonly log: FastifyBaseLogger, private readonly lifecycle: Phases) {
    this.heartbeat = setInterval(() => this.beat(), settings.heartbeat * 1000).unref()
  }

  /** Starts an SSE response and keeps it until it closes; `onClose` runs then. Refused while the app closes. */
  start (request: FastifyRequest, reply: FastifyReply, onClose: () => void): SseStream {
    if (this.lifecycle.closing) throw REFUSALS.streamWhileClosing()
    return this.track(startEventStream(request, reply), onClose)
  }

  /** `preClose`: ends every stream, so the server can close. */
  endAll (): void {
    clearInterval(this.heartbeat)
    for (const stream of this.streams) stream.end()
  }

  /** The coded error of an emit or publish whose frame passes the limit. */
  tooLarge (call: string, what: string, overhead: number, json: string, outcome: string): Error | undefined {
    const limit = this.settings.maxBufferBytes
    const bytes = oversizedFrame(overhead, json, limit)
    if (bytes === undefined) return undefined
    return new FST_SVC_PAYLOAD_TOO_LARGE(`${call}: ${what} is ${bytes} bytes, more than realtime.maxBufferBytes (${limit}), past which a stream is disconnected. ${outcome}. Send less (e.g. an id the subscriber fetches), or raise realtime.maxBufferBytes.`)
  }

  /**
   * A message from an instance whose `maxBufferBytes` is larger than this one's: written here, its frame
   * would disconnect every subscriber. It is logged and not delivered.
   */
  refusedOnArrival (overhead: number, json: string, about: Record<string, string>): boolean {
    const limit = this.settings.maxBufferBytes
    const bytes = oversizedFrame(overhead, json, limit)
    if (bytes === undefined) return false
    this.log.warn({ ...about, bytes, limit }, 'fastify-svc-manifest: a message from another instance is larger than realtime.maxBufferBytes here; not delivered')
    return true
  }

  private track (response: ServerResponse, onClose: () => void): SseStream {
    const stream: SseStream = new SseStream(response, this.settings, () => {
      this.streams.delete(stream)
      onClose()
    }, (bufferedBytes) => {
      this.log.warn({ bufferedBytes, limit: this.settings.maxBufferBytes }, 'fastify-svc-manifest: a stream subscriber does not read; disconnected it')
    })
    if (stream.open) this.streams.add(stream)
    return stream
  }

  private beat (): void {
    for (const stream of this.streams) stream.write(HEARTBEAT)
  }
}
