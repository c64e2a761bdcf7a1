import type { FastifyReply } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { CallCancelled, type Progress } from '../util/call-control.js'
import type { InnerResponse, ResponseTap } from './inner.js'
import type { Outcome } from './outcome.js'
import { PieceReader, valueOf, type Piece } from './pieces.js'
import { EVENT_STREAM_HEAD } from '../util/event-stream.js'

/**
 * A streamed execute (docs/long-running.md): the answer is `text/event-stream`, committed at the route's
 * first piece or first progress report, one frame per event as it happens: `chunk`, `progress`, then one
 * `done` or `error`. Before it is committed, a failure is still the ordinary JSON envelope.
 *
 * The relay sits on the route's inner response (`ResponseTap`): the body of a `stream: true` command that
 * answered 2xx is cut into pieces by its content type (pieces.ts) and sent on at once, never held; anything else
 * (a command not declared `stream`, a failure, a JSON body) is left to the response, as a buffered call.
 * A caller that reads slower than the route writes may leave at most `limit` bytes of frames unsent: past
 * that the call is cancelled (`signal`), and the stream ends with an `error` frame, 413.
 */
export class StreamRelay implements ResponseTap {
  committed = false
  /** Aborts when the caller falls too far behind: with the caller's own signal, what bounds the call. */
  readonly behind = new AbortController()
  private readonly pieces: PieceReader
  /** Frames of this turn of the event loop not yet written: they leave together, in one write. */
  private pending = ''
  private readonly flush = (): void => {
    const frames = this.pending
    this.pending = ''
    // Written to a response whose caller left, frames go nowhere, without an error.
    if (frames !== '') this.reply.raw.write(frames)
  }

  constructor (private readonly reply: FastifyReply, streams: boolean, private readonly limit: number) {
    this.pieces = new PieceReader(streams, (piece) => { this.chunk(piece) }, {
      // The route's bytes go to the caller, not to the response that counts them: a piece is held to the budget here.
      limit,
      onOverflow: () => {
        this.behind.abort(new CallCancelled(413, 'PAYLOAD_TOO_LARGE', `A piece of the route's stream passed ${limit} bytes (invoke.maxResultBytes) before it ended, and the call was cancelled.`))
      }
    })
  }

  readonly progress = (progress: Progress): void => {
    this.frame({ type: 'progress', ...progress })
  }

  write (response: InnerResponse, chunk: string | Buffer): boolean {
    return this.pieces.write(response, chunk)
  }

  /** Ends the stream with the call's outcome: `done` with the final result, or `error`. */
  end (outcome: Outcome): void {
    if (outcome.ok) {
      this.pieces.end()
      const final = this.pieces.final
      const done: Record<string, unknown> = { type: 'done', result: final === undefined ? outcome.result : final.value }
      if (outcome.encoding !== undefined) {
        done.encoding = outcome.encoding
        done.contentType = outcome.contentType
      }
      this.frame(done)
    } else {
      this.frame({ type: 'error', error: outcome.error }, true)
    }
    this.flush()
    if (!this.reply.raw.destroyed) this.reply.raw.end()
  }

  /**
   * A `chunk` frame. A piece's JSON text is written into the frame as it is, unless it spans lines, which
   * would break the event: then its value is.
   */
  private chunk (piece: Piece): void {
    if (piece.json && piece.text.indexOf('\n') === -1 && piece.text.indexOf('\r') === -1) this.send(`data: {"type":"chunk","data":${piece.text}}\n\n`)
    else if (piece.encoding === undefined) this.frame({ type: 'chunk', data: valueOf(piece) })
    else this.frame({ type: 'chunk', data: piece.text, encoding: piece.encoding })
  }

  private frame (value: Record<string, unknown>, last = false): void {
    this.send(`data: ${JSON.stringify(value)}\n\n`, last)
  }

  /**
   * Sends one frame, committing the answer first. Once the caller is too far behind, only the closing
   * `error` frame (`last`) is still written. The frames of one turn of the event loop leave in one write.
   */
  private send (frame: string, last = false): void {
    const raw = this.reply.raw
    // Ended: a report the route makes after its call ended goes nowhere.
    if (raw.writableEnded || raw.destroyed || (this.behind.signal.aborted && !last)) return
    if (!this.committed) {
      this.committed = true
      this.reply.hijack()
      // What hooks set on the outer reply (CORS, relayed headers) goes with the stream's own head.
      const headers = { ...this.reply.getHeaders(), ...EVENT_STREAM_HEAD } as OutgoingHttpHeaders
      raw.writeHead(200, headers)
    }
    if (this.pending === '') process.nextTick(this.flush)
    this.pending += frame
    // A route that writes much in one turn is not held to its end: its frames leave once they fill a write.
    if (this.pending.length >= FLUSH_AT) this.flush()
    if (raw.writableLength + this.pending.length > this.limit && !last) {
      this.behind.abort(new CallCancelled(413, 'PAYLOAD_TOO_LARGE', `The caller read the stream more slowly than the route wrote it: more than ${this.limit} bytes (invoke.maxResultBytes) waited to be sent, and the call was cancelled.`))
    }
  }
}

/** The most characters of frames held for one write. */
const FLUSH_AT = 64 * 1024

/** Whether an `Accept` header asks for an event stream: it lists `text/event-stream` and not `application/json`. */
export function acceptsEventStream (accept: string | undefined): boolean {
  if (accept === undefined) return false
  let stream = false
  for (const entry of accept.split(',')) {
    const type = entry.split(';', 1)[0].trim().toLowerCase()
    if (type === 'application/json') return false
    if (type === 'text/event-stream') stream = true
  }
  return stream
}
