import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { createParser } from 'eventsource-parser'

export interface Frame {
  id?: string
  event?: string
  /** The `data` line parsed as JSON. */
  data: unknown
}

/**
 * A Server-Sent Events subscriber over a plain HTTP request, to see exactly what the server sends:
 * status, headers, every frame and every comment. Non-200 answers keep their body.
 */
export class SseSubscriber {
  readonly frames: Frame[] = []
  comments = 0
  ended = false
  body = ''
  private waiters: Array<() => void> = []

  constructor (private readonly request: ClientRequest, readonly response: IncomingMessage, keepData: boolean) {
    const parser = createParser({
      onEvent: (event) => this.frames.push({ id: event.id, event: event.event, data: keepData ? JSON.parse(event.data) : undefined }),
      onComment: () => { this.comments++ }
    })
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      if (response.statusCode === 200) parser.feed(chunk)
      else this.body += chunk
      this.wake()
    })
    response.on('end', () => { this.ended = true; this.wake() })
    response.on('close', () => { this.ended = true; this.wake() })
    response.on('error', () => {})
  }

  get status (): number {
    return this.response.statusCode as number
  }

  get headers (): IncomingHttpHeaders {
    return this.response.headers
  }

  json (): Record<string, unknown> {
    return JSON.parse(this.body)
  }

  /** Resolves once `condition` holds; rejects after `timeout` ms. */
  async until (condition: () => boolean, timeout = 3000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeout
    while (!condition()) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames so far: ${JSON.stringify(this.frames)}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiters.push(() => { clearTimeout(timer); resolve() })
      })
    }
  }

  /** Resolves with the frames once there are `count` of them. */
  async frameCount (count: number, timeout?: number): Promise<Frame[]> {
    await this.until(() => this.frames.length >= count, timeout, `${count} frames`)
    return this.frames
  }

  /** Resolves when the server ended the stream. */
  async end (timeout?: number): Promise<void> {
    await this.until(() => this.ended, timeout, 'the end of the stream')
  }

  close (): void {
    this.request.destroy()
  }

  private wake (): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}

/**
 * Opens `path` on a listening app and resolves once the response headers arrived. `keepData: false`
 * counts frames without keeping their payloads (for tests that measure memory).
 */
export function subscribe (origin: string, path: string, headers: Record<string, string> = {}, { keepData = true } = {}): Promise<SseSubscriber> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, origin), { headers: { accept: 'text/event-stream', ...headers }, agent: false })
    request.on('response', (response) => resolve(new SseSubscriber(request, response, keepData)))
    request.on('error', reject)
    request.end()
  })
}

/** Resolves once `condition` holds, checking every 5 ms; rejects naming `what` after `timeout` ms. */
export async function until (condition: () => boolean, what: string, timeout = 5000): Promise<void> {
  const deadline = Date.now() + timeout
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await pause(5)
  }
}

/** Waits a little, to show that something does not arrive. */
export function pause (ms = 100): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
