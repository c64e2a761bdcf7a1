import { isUtf8 } from 'node:buffer'
import { StringDecoder } from 'node:string_decoder'
import { createParser, type EventSourceParser } from 'eventsource-parser'
import type { InnerResponse } from './inner.js'
import { isJsonText } from './json-text.js'

/**
 * One piece of a route's stream, as its text: `json` when the text is one JSON value (a line or an event's
 * data; a plain chunk never is), `base64` when it is a chunk that is not valid UTF-8. Whoever frames a piece
 * on writes its JSON text as it is, which costs less than parsing it and serialising it again.
 */
export interface Piece {
  text: string
  json: boolean
  encoding?: 'base64'
}

export type PieceHandler = (piece: Piece) => void

/** How much of a piece not yet ended (a line, an event) the reader may hold, and what to do past it. */
export interface PieceBound {
  limit: number
  onOverflow: () => void
}

/**
 * Cuts a `stream: true` command's body into pieces as the route writes it (docs/long-running.md#pieces), by
 * the route's `content-type`: SSE events' `data`, NDJSON lines, or each chunk as text. A body that is not
 * cut (a command not declared `stream`, a status other than 2xx, JSON) is `held`: the response keeps it.
 * Shared by the streamed execute and MCP's progress notifications.
 */
export class PieceReader {
  private kind: PieceKind | undefined
  private parser: EventSourceParser | undefined
  private decoder: StringDecoder | undefined
  /** The bytes of a line of NDJSON still being written, as they came. */
  private line: Buffer[] = []
  /** The bytes held of a piece not yet ended. */
  private held = 0
  /** The SSE event named `result`: the final result. */
  final: { value: unknown } | undefined

  /**
   * Without `bound`, the reader holds what the response itself holds and counts (a buffered call, whose
   * body the byte budget bounds).
   */
  constructor (private readonly streams: boolean, private readonly onPiece: PieceHandler, private readonly bound?: PieceBound) {}

  /** Reads one chunk of the body; false when the body is held (not cut into pieces). */
  write (response: InnerResponse, chunk: string | Buffer): boolean {
    const kind = this.kind ?? this.kindFor(response.statusCode, response.getHeader('content-type'))
    if (kind === 'held') return false
    this.read(kind, chunk)
    return true
  }

  /** Reads one chunk of a body cut into pieces as `kind`. */
  read (kind: Exclude<PieceKind, 'held'>, chunk: string | Buffer): void {
    if (kind === 'text') {
      const text = typeof chunk === 'string' || isUtf8(chunk) ? chunk.toString() : undefined
      if (text === undefined) this.onPiece({ text: (chunk as Buffer).toString('base64'), json: false, encoding: 'base64' })
      else this.onPiece({ text, json: false })
      return
    }
    if (kind === 'sse') {
      // Held bytes are counted as an NDJSON line's are: the bound is in bytes.
      this.held += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length
      this.parser!.feed(typeof chunk === 'string' ? chunk : this.decoder!.write(chunk))
    } else {
      this.lines(chunk)
    }
    if (this.bound !== undefined && this.held > this.bound.limit) {
      // What is held is let go, and whatever the route still writes is held to the bound again.
      this.line = []
      this.held = 0
      this.parser?.reset()
      this.bound.onOverflow()
    }
  }

  /** The body ended: the last line of NDJSON may come without its newline. */
  end (): void {
    if (this.kind === 'lines' && this.line.length > 0) {
      const line = this.heldLine()
      this.piece(line, 0, line.length)
    }
  }

  /** How the body of this status and content type is cut: decided once, by the first chunk. */
  kindFor (status: number, contentType: unknown): PieceKind {
    this.kind ??= this.kindOf(status, contentType)
    return this.kind
  }

  private kindOf (status: number, contentType: unknown): PieceKind {
    if (!this.streams || status < 200 || status >= 300) return 'held'
    const type = String(contentType ?? '').split(';', 1)[0].trim().toLowerCase()
    if (type === 'application/json' || type.endsWith('+json')) return 'held'
    if (type === 'text/event-stream') {
      this.decoder = new StringDecoder('utf8')
      this.parser = createParser({
        onEvent: ({ event, data }) => {
          this.held = 0
          if (event === 'result') this.final = { value: valueOf(pieceOf(data)) }
          else this.onPiece(pieceOf(data))
        }
      })
      return 'sse'
    }
    if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'lines'
    return 'text'
  }

  /**
   * Lines are cut on the route's bytes (a newline byte is never part of another character) and each line is
   * decoded alone: no decoder, no split, no join of decoded text. A line's start that came in earlier chunks
   * is held as bytes, so a character cut between two chunks is whole again when the line ends.
   */
  private lines (chunk: string | Buffer): void {
    let end = newlineIn(chunk, 0)
    if (end === -1) {
      this.hold(chunk, 0)
      return
    }
    let start = 0
    if (this.line.length > 0) {
      this.line.push(typeof chunk === 'string' ? Buffer.from(chunk.slice(0, end)) : chunk.subarray(0, end))
      const line = this.heldLine()
      this.piece(line, 0, line.length)
      start = end + 1
      end = newlineIn(chunk, start)
    }
    while (end !== -1) {
      this.piece(chunk, start, end)
      start = end + 1
      end = newlineIn(chunk, start)
    }
    this.held = 0
    if (start < chunk.length) this.hold(chunk, start)
  }

  /** Holds the start of a line, copied: the route may reuse its buffer once its write is taken. */
  private hold (chunk: string | Buffer, start: number): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk.slice(start)) : Buffer.from(chunk.subarray(start))
    this.line.push(bytes)
    this.held += bytes.length
  }

  /** The line held, whole, and let go. */
  private heldLine (): Buffer {
    const bytes = this.line.length === 1 ? this.line[0] : Buffer.concat(this.line)
    this.line = []
    this.held = 0
    return bytes
  }

  /** The line from `start` to `end` (a newline, or the body's end); a `\r` before its end is not its own. */
  private piece (chunk: string | Buffer, start: number, end: number): void {
    if (end > start && (typeof chunk === 'string' ? chunk.charCodeAt(end - 1) : chunk[end - 1]) === CR) end--
    const text = typeof chunk === 'string' ? chunk.slice(start, end) : chunk.toString('utf8', start, end)
    if (text.trim() !== '') this.onPiece(pieceOf(text))
  }
}

const CR = 0x0d

function newlineIn (chunk: string | Buffer, from: number): number {
  return typeof chunk === 'string' ? chunk.indexOf('\n', from) : chunk.indexOf(0x0a, from)
}

/**
 * A `stream: true` command's whole 2xx body as a buffered call's result, when it is cut into pieces by
 * events or lines: the array of its pieces (an SSE event named `result` is the result instead); else
 * undefined, and the body is read as any other.
 */
export function bufferedPieces (contentType: string | undefined, body: string | Buffer): { value: unknown } | undefined {
  const pieces: unknown[] = []
  const reader = new PieceReader(true, (piece) => { pieces.push(valueOf(piece)) })
  const kind = reader.kindFor(200, contentType)
  // Plain text is not cut here: a buffered call reads it as any other body.
  if (kind !== 'sse' && kind !== 'lines') return undefined
  reader.read(kind, body)
  reader.end()
  return reader.final ?? { value: pieces }
}

/** How a `stream: true` command's body is cut into pieces; `held`: it is not, the response keeps it. */
type PieceKind = 'held' | 'sse' | 'lines' | 'text'

function pieceOf (text: string): Piece {
  return { text, json: isJsonText(text) }
}

/** A piece's value: what its JSON text says, else its text. */
export function valueOf (piece: Piece): unknown {
  return piece.json ? JSON.parse(piece.text) : piece.text
}
