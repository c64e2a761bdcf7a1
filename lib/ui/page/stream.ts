/*
 * An SSE stream read through `fetch`: EventSource cannot send an `Authorization` header, and the events
 * and channel streams need the visitor's token. Frames are parsed by eventsource-parser, the parser the
 * package's client uses, fed as the bytes arrive.
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
  /** The server answered something other than a stream: its status and body. */
  onRefused: (status: number, statusText: string, body: string) => void
  /** The stream is over: the server ended it, `stop()` was called, or the connection failed. */
  onEnd: (how: 'ended' | 'stopped' | 'failed', message?: string) => void
}

export interface OpenStream {
  stop: () => void
}

/** `authorization`: the header value for the visitor's token; `''` for none. */
export function openStream (url: string, authorization: string, handlers: StreamHandlers): OpenStream {
  const controller = new AbortController()
  const headers: Record<string, string> = { accept: 'text/event-stream' }
  if (authorization !== '') headers.authorization = authorization
  read(url, headers, controller.signal, handlers).catch((error: Error) => {
    handlers.onEnd(controller.signal.aborted ? 'stopped' : 'failed', error.message)
  })
  return { stop: () => controller.abort() }
}

async function read (url: string, headers: Record<string, string>, signal: AbortSignal, handlers: StreamHandlers): Promise<void> {
  const response = await fetch(url, { headers, signal, cache: 'no-store' })
  const type = response.headers.get('content-type') ?? ''
  if (!response.ok || response.body === null || !type.startsWith('text/event-stream')) {
    handlers.onRefused(response.status, response.statusText, await response.text())
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
