import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { SseStream, startEventStream, type StreamLimits } from '../realtime/stream.js'
import { EVENT_STREAM_HEAD } from '../util/event-stream.js'

/** Headers of the SDK's response that the SSE start sets itself, or that would keep the connection open. */
const OWN_HEADERS = new Set([...Object.keys(EVENT_STREAM_HEAD), 'connection'])

/**
 * The SSE responses of the MCP endpoint (listen streams, a session's stream, a request answered as a
 * stream), held to the rules of the events streams (docs/realtime.md, docs/mcp.md): what the SDK writes is read from it at
 * once and written to the socket, so nothing waits inside the SDK; a reader that stops reading is
 * disconnected once more than `maxBufferBytes` wait for it; `app.close()` ends them all at once.
 */
export class McpStreams {
  private readonly open = new Set<SseStream>()
  /** Connections that have not sent a byte yet. */
  private readonly fresh = new Set<Socket>()

  constructor (private readonly limits: StreamLimits, private readonly log: FastifyBaseLogger) {}

  /**
   * Sends the SDK's `response`, an SSE stream, as the reply: its headers, then its frames as they come,
   * until either side ends it. `onClose` runs once the response is closed (never when the client had
   * already left). `answer`: the stream answers one POST and ends with its result, so its connection
   * stays open for the client's next request, as after a JSON answer (measured: closing it made each
   * call of a 2025 session open a new connection).
   */
  send (request: FastifyRequest, reply: FastifyReply, response: Response, onClose: () => void = () => {}, answer = false): void {
    for (const [name, value] of response.headers) {
      if (!OWN_HEADERS.has(name)) reply.header(name, value)
    }
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const raw = answer ? startAnswerStream(reply) : startEventStream(request, reply)
    const stream: SseStream = new SseStream(raw, this.limits, () => {
      this.open.delete(stream)
      // The SDK lets go of the stream (and a listen of its subscriptions) once it is cancelled.
      reader.cancel().catch(ignoreFailure)
      onClose()
    }, (bufferedBytes) => {
      this.log.warn({ bufferedBytes, limit: this.limits.maxBufferBytes }, 'fastify-svc-manifest: an MCP stream reader does not read; disconnected it')
    })
    if (!stream.open) {
      // The client left while the SDK worked: nothing will close this stream, so what waits on it is told now.
      reader.cancel().catch(ignoreFailure)
      onClose()
      return
    }
    this.open.add(stream)
    pump(reader, stream, raw).catch(ignoreFailure)
  }

  /**
   * Follows the server's new connections until they send something: one a client opened and never used
   * (its request aborted) is "active" to Node, which then waits for its headers timeout (60 s) on close.
   */
  watch (server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.fresh.add(socket)
      const used = (): void => { this.fresh.delete(socket) }
      socket.once('data', used)
      socket.once('close', used)
    })
  }

  /**
   * On close, once the server takes no more connections: ends every stream at once, unsent data or not,
   * and closes the connections never used. Node's own closing of idle connections has run by then, and
   * misses a connection never used (a client opened it for a request it then aborted): the server would
   * wait for its headers timeout (measured: 70 s).
   */
  endAll (): void {
    // Every stream here has been closed by then, in every case the tests stage (test/faults/mcp-listen.test.ts:
    // listens and session streams, stalled with unsent bytes or not): the SDK's close and the sessions' end
    // them first. This keeps a stream the SDK would leave open from holding app.close().
    /* c8 ignore next */
    for (const stream of this.open) stream.end()
    for (const socket of this.fresh) {
      socket.destroy()
    }
  }
}

/**
 * The start of a stream that answers one request: the SSE headers of `startEventStream` without
 * `connection: close`. It ends with the request's result, and its connection is then idle like any other
 * (`app.close()` closes idle connections); streams that stay open (listens, a session's GET) close theirs.
 */
function startAnswerStream (reply: FastifyReply): ServerResponse {
  reply.hijack()
  const response = reply.raw
  response.writeHead(200, { ...(reply.getHeaders() as Record<string, string | number | string[]>), ...EVENT_STREAM_HEAD })
  response.flushHeaders()
  return response
}

/**
 * Writes what the SDK sends as it comes, until its stream ends (then the response ends once what waits is
 * sent: the last frame may be a request's result) or is cancelled because the response closed.
 */
async function pump (reader: ReadableStreamDefaultReader<Uint8Array>, stream: SseStream, response: ServerResponse): Promise<void> {
  const decoder = new TextDecoder()
  for (;;) {
    const { done, value } = await reader.read().catch(/* c8 ignore next: the SDK's transports close their streams, they never error them; an error would end the stream as its end does */ () => ({ done: true as const, value: undefined }))
    if (done) break
    stream.write(decoder.decode(value, { stream: true }))
  }
  if (!response.destroyed) response.end()
}

/** Called for what has no one left to tell: a cancel of a stream already gone, an update to a session closing. */
/* c8 ignore next: none of them fails in the runs the tests can stage (the SDK's cancel, send and close resolve once closed), yet a rejection left unhandled would end the process */
export function ignoreFailure (): void {}
