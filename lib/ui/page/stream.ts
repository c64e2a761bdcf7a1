/*
 * An SSE stream read through `fetch`: EventSource cannot send an `Authorization` header nor a body, and
 * the events and channel streams need the visitor's token, a streamed execute its envelope. Frames are
 * parsed by eventsource-parser, the parser the package's client uses, fed as the bytes arrive.
 */
import { createParser } from 'eventsource-parser'

export interface Frame {
  id?: string
  event?: string
  data: string
}

export interface StreamHandlers {
  /** The server accepted the stream. */
  onOpen: () => void
  onFrame: (frame: Frame) => void
  /** The server answered something other than a stream: the response, and its body read. */
  onRefused: (response: Response, body: string) => void
  /** The stream is over: the server ended it, `stop()` was called, or the connection failed. */
  onEnd: (how: 'ended' | 'stopped' | 'failed', message?: string) => void
}

export interface OpenStream {
  /** Aborts the request: the server sees its caller go away (a streamed execute cancels the call). */
  stop: () => void
}

export interface StreamRequest {
  url: string
  /** The header value for the visitor's token; `''` for none. */
  authorization: string
  /** A JSON body to POST (a streamed execute's envelope); without it, a GET. */
  body?: unknown
}

export function openStream (request: StreamRequest, handlers: StreamHandlers): OpenStream {
  const controller = new AbortController()
  read(request, controller.signal, handlers).catch((error: Error) => {
    handlers.onEnd(controller.signal.aborted ? 'stopped' : 'failed', error.message)
  })
  return { stop: () => controller.abort() }
}

async function read ({ url, authorization, body }: StreamRequest, signal: AbortSignal, handlers: StreamHandlers): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' }
  if (authorization !== '') headers.authorization = authorization
  const init: RequestInit = { headers, signal, cache: 'no-store' }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    init.method = 'POST'
    init.body = JSON.stringify(body)
  }
  const response = await fetch(url, init)
  const type = response.headers.get('content-type') ?? ''
  if (!response.ok || response.body === null || !type.startsWith('text/event-stream')) {
    handlers.onRefused(response, await response.text())
    return
  }
  handlers.onOpen()
  const parser = createParser({ onEvent: (message) => handlers.onFrame(message) })
  const decoder = new TextDecoder()
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parser.feed(decoder.decode(value, { stream: true }))
  }
  handlers.onEnd('ended')
}
