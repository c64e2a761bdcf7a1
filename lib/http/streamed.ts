import { isUtf8 } from 'node:buffer'
import { StringDecoder } from 'node:string_decoder'
import { createParser, type EventSourceParser } from 'eventsource-parser'
import type { FastifyReply } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { CallCancelled, type Progress } from './call.js'
import type { InnerResponse, ResponseTap } from './inner.js'
import type { Outcome } from './outcome.js'
import { EVENT_STREAM_HEAD } from '../util/event-stream.js'

/**
 * A streamed execute (docs/long-running.md): the answer is `text/event-stream`, committed at the route's
 * first piece or first progress report, one frame per event as it happens: `chunk`, `progress`, then one
 * `done` or `error`. Before it is committed, a failure is still the ordinary JSON envelope.
 *
 * The relay sits on the route's inner response (`ResponseTap`): the body of a `stream: true` command that
 * answered 2xx is cut into pieces by its content type and sent on at once, never held; anything else
 * (a command not declared `stream`, a failure, a JSON body) is left to the response, as a buffered call.
 * A caller that reads slower than the route writes may leave at most `limit` bytes of frames unsent: past
 * that the call is cancelled (`signal`), and the stream ends with an `error` frame, 413.
 */
export class StreamRelay implements ResponseTap {
  committed = false
  /** Aborts when the caller falls too far behind: with the caller's own signal, what bounds the call. */
  readonly behind = new AbortController()
  private kind: PieceKind | undefined
  private parser: EventSourceParser | undefined
  private decoder: StringDecoder | undefined
  /** A line of NDJSON still being written. */
  private line = ''
  /** What the piece reader holds of a piece not yet ended (a line, an event): at most `limit`. */
  private held = 0
  /** The SSE event named `result`: the final result. */
  private final: { value: unknown } | undefined

  constructor (private readonly reply: FastifyReply, private readonly streams: boolean, private readonly limit: number) {}

  readonly progress = (progress: Progress): void => {
    this.frame({ type: 'progress', ...progress })
  }

  write (response: InnerResponse, chunk: string | Buffer): boolean {
    this.kind ??= this.kindOf(response)
    if (this.kind === 'held') return false
    if (this.kind === 'text') {
      const text = typeof chunk === 'string' || isUtf8(chunk) ? chunk.toString() : undefined
      if (text === undefined) this.frame({ type: 'chunk', data: (chunk as Buffer).toString('base64'), encoding: 'base64' })
      else this.frame({ type: 'chunk', data: text })
      return true
    }
    const text = typeof chunk === 'string' ? chunk : this.decoder!.write(chunk)
    this.held += text.length
    if (this.kind === 'sse') this.parser!.feed(text)
    else this.lines(text)
    if (this.held > this.limit) {
      // What is held is let go; the call is cancelled, and whatever the route still writes is held to this again.
      this.line = ''
      this.held = 0
      this.parser?.reset()
      this.behind.abort(new CallCancelled(413, 'PAYLOAD_TOO_LARGE', `A piece of the route's stream passed ${this.limit} bytes (invoke.maxResultBytes) before it ended, and the call was cancelled.`))
    }
    return true
  }

  /** Ends the stream with the call's outcome: `done` with the final result, or `error`. */
  end (outcome: Outcome): void {
    if (outcome.ok) {
      // The last line of NDJSON may come without its newline.
      if (this.kind === 'lines') this.piece(this.line)
      const done: Record<string, unknown> = { type: 'done', result: this.final === undefined ? outcome.result : this.final.value }
      if (outcome.encoding !== undefined) {
        done.encoding = outcome.encoding
        done.contentType = outcome.contentType
      }
      this.frame(done)
    } else {
      this.frame({ type: 'error', error: outcome.error }, true)
    }
    if (!this.reply.raw.destroyed) this.reply.raw.end()
  }

  private kindOf (response: InnerResponse): PieceKind {
    if (!this.streams || response.statusCode < 200 || response.statusCode >= 300) return 'held'
    const type = String(response.getHeader('content-type') ?? '').split(';', 1)[0].trim().toLowerCase()
    if (type === 'application/json' || type.endsWith('+json')) return 'held'
    if (type === 'text/event-stream') {
      this.decoder = new StringDecoder('utf8')
      this.parser = createParser({
        onEvent: ({ event, data }) => {
          this.held = 0
          if (event === 'result') this.final = { value: parsed(data) }
          else this.frame({ type: 'chunk', data: parsed(data) })
        }
      })
      return 'sse'
    }
    if (type === 'application/x-ndjson' || type === 'application/jsonl') {
      this.decoder = new StringDecoder('utf8')
      return 'lines'
    }
    return 'text'
  }

  private lines (text: string): void {
    // Only the new text is searched for the line's end, so a long line costs its length once.
    const end = text.lastIndexOf('\n')
    if (end === -1) {
      this.line += text
      return
    }
    const lines = (this.line + text.slice(0, end)).split('\n')
    this.line = text.slice(end + 1)
    this.held = this.line.length
    for (const line of lines) this.piece(line)
  }

  private piece (line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.trim() !== '') this.frame({ type: 'chunk', data: parsed(text) })
  }

  /**
   * Sends one frame, committing the answer first. Once the caller is too far behind, only the closing
   * `error` frame (`last`) is still written.
   */
  private frame (value: Record<string, unknown>, last = false): void {
    const raw = this.reply.raw
    if (raw.destroyed || (this.behind.signal.aborted && !last)) return
    if (!this.committed) {
      this.committed = true
      this.reply.hijack()
      // What hooks set on the outer reply (CORS, relayed headers) goes with the stream's own head.
      const headers = { ...this.reply.getHeaders(), ...EVENT_STREAM_HEAD } as OutgoingHttpHeaders
      raw.writeHead(200, headers)
    }
    raw.write(`data: ${JSON.stringify(value)}\n\n`)
    if (raw.writableLength > this.limit && !last) {
      this.behind.abort(new CallCancelled(413, 'PAYLOAD_TOO_LARGE', `The caller read the stream more slowly than the route wrote it: more than ${this.limit} bytes (invoke.maxResultBytes) waited to be sent, and the call was cancelled.`))
    }
  }
}

/** How a `stream: true` command's body is cut into pieces; `held`: it is not, the response keeps it. */
type PieceKind = 'held' | 'sse' | 'lines' | 'text'

/** A piece's data: JSON when it parses, else the text. */
function parsed (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

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
