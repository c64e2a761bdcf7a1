import { PassThrough, Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { readyApp } from './app.js'
import { listening } from './net.js'
import { pause } from './sse.js'

// Streaming routes of every kind a streamed call meets (docs/long-running.md): NDJSON, SSE with a result
// event, bytes, a job that reports progress, routes that never end or wait to be cancelled, refusals and
// failures. The streamed execute, the client and the CLI are tested against these same routes.

/** What the routes did, for the test to watch. */
export interface StreamLog {
  /** Writes the rest of `lines`' NDJSON stream and ends it. */
  more?: () => void
  /** Writes the rest of `sse`'s events and ends it, when `StreamContent.sse` has a rest. */
  moreSse?: () => void
  /** Commands whose route started, of those that never end or wait to be cancelled. */
  started: string[]
  /** Why each of those routes' `request.svc.signal` aborted (its reason), by command. */
  aborted: Record<string, unknown>
  /** Commands whose `request.raw` emitted `close`, of those routes. */
  closed: string[]
  /** Pieces `endless` and `flood` wrote. */
  written: number
}

/** The bodies each test file asserts on. */
export interface StreamContent {
  /** What `lines` (NDJSON) writes at once, and what `log.more()` writes before it ends. */
  lines: readonly [string, string]
  /** What `sse` writes at once; with a second part, `log.moreSse()` writes that and ends it, else it ends at once. */
  sse: readonly [string, string?]
  /** The pieces `binary` (application/octet-stream) sends. */
  binary: readonly Buffer[]
}

export function newStreamLog (): StreamLog {
  return { started: [], aborted: {}, closed: [], written: 0 }
}

/** Registers the routes on an app; what they do goes into `log`. */
export function streamRoutes (log: StreamLog, content: StreamContent) {
  const watch = (name: string, request: FastifyRequest): void => {
    log.started.push(name)
    const { signal } = request.svc
    signal.addEventListener('abort', () => { log.aborted[name] = signal.reason })
    request.raw.on('close', () => { log.closed.push(name) })
  }
  return (app: FastifyInstance): void => {
    app.get('/lines', { svc: { name: 'lines', description: 'NDJSON lines', stream: true } }, async (request, reply) => {
      const body = new PassThrough()
      body.write(content.lines[0])
      log.more = () => { body.end(content.lines[1]) }
      return reply.type('application/x-ndjson').send(body)
    })
    app.get('/sse', { svc: { name: 'sse', description: 'SSE with a result event', stream: true } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
      const [first, rest] = content.sse
      if (rest === undefined) {
        reply.raw.end(first)
        return
      }
      reply.raw.write(first)
      log.moreSse = () => { reply.raw.end(rest) }
    })
    app.get('/binary', { svc: { name: 'binary', description: 'Bytes', stream: true } }, async (request, reply) => {
      return reply.type('application/octet-stream').send(Readable.from(content.binary))
    })
    app.get('/job', { svc: { name: 'job', description: 'A job that reports progress' } }, async (request) => {
      for (let step = 1; step <= 3; step++) {
        if (request.svc.signal.aborted) throw new Error('stopped')
        request.svc.progress(step, step === 2 ? { total: 3, message: 'halfway' } : { total: 3 })
        await pause(10)
      }
      return { done: true }
    })
    app.get('/json', { svc: { name: 'json', description: 'A JSON body', stream: true } }, async (request, reply) => reply.header('retry-after', '5').send({ whole: true }))
    app.get('/bare', { svc: { name: 'bare', description: 'No content type', stream: true } }, (request, reply) => {
      reply.hijack()
      reply.raw.end('as is')
    })
    app.get('/bytes', { svc: { name: 'bytes', description: 'Binary, not streamed' } }, async (request, reply) => reply.type('application/octet-stream').send(Buffer.from([1, 2])))
    app.get('/logo', { svc: { name: 'logo', description: 'An image, not streamed' } }, async (request, reply) => reply.type('image/png').send(Buffer.from([137, 80])))
    app.get('/search', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } } } }, svc: { name: 'search', description: 'Echoes its query' } }, async (request) => {
      request.svc.progress(1)
      return request.query
    })
    // One NDJSON line every 5 ms, until the caller goes away.
    app.get('/endless', { svc: { name: 'endless', description: 'Never ends', stream: true, timeout: 0 } }, async (request, reply) => {
      watch('endless', request)
      let tick = 0
      const body = new Readable({
        read () {
          setTimeout(() => {
            log.written++
            this.push(`{"tick":${++tick}}\n`)
          }, 5)
        }
      })
      return reply.type('application/x-ndjson').send(body)
    })
    // 1 KiB of text as fast as it is read, until the caller goes away.
    app.get('/flood', { svc: { name: 'flood', description: 'Never ends, fast', stream: true, timeout: 0 } }, async (request, reply) => {
      watch('flood', request)
      const chunk = 'x'.repeat(1024)
      const body = new Readable({
        read () {
          setImmediate(() => {
            log.written++
            this.push(chunk)
          })
        }
      })
      return reply.type('text/plain').send(body)
    })
    app.get('/slow-endless', { svc: { name: 'slowEndless', description: 'Ends at its deadline', stream: true, timeout: 300 } }, async (request, reply) => {
      watch('slowEndless', request)
      const body = new PassThrough()
      body.write('tick')
      return reply.type('text/plain').send(body)
    })
    // A line, or an event, that never ends: the piece reader may hold only so much of it.
    app.get('/long-line', { svc: { name: 'longLine', description: 'An NDJSON line without end', stream: true, timeout: 0 } }, async (request, reply) => {
      watch('longLine', request)
      const chunk = 'x'.repeat(16 * 1024)
      let first = true
      const body = new Readable({
        read () {
          setImmediate(() => { this.push(first ? '{"n":1}\n' : chunk); first = false })
        }
      })
      return reply.type('application/x-ndjson').send(body)
    })
    app.get('/long-event', { svc: { name: 'longEvent', description: 'An SSE event without end', stream: true, timeout: 0 } }, (request, reply) => {
      watch('longEvent', request)
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
      reply.raw.write('data: {"step":1}\n\ndata: ')
      const timer = setInterval(() => { reply.raw.write('x'.repeat(16 * 1024)) }, 1)
      request.raw.on('close', () => { clearInterval(timer) })
    })
    // Reports progress once, then waits for its signal: only the caller going away ends it.
    app.get('/wait', { svc: { name: 'wait', description: 'Waits until cancelled', timeout: 0 } }, async (request) => {
      watch('wait', request)
      request.svc.progress(1, { message: 'started' })
      await new Promise((resolve) => request.svc.signal.addEventListener('abort', resolve))
      return 'cancelled'
    })
    app.get('/locked', { svc: { name: 'locked', description: 'Refuses', stream: true } }, async (request, reply) => reply.code(401).send({ message: 'no' }))
    app.get('/breaks', { svc: { name: 'breaks', description: 'Breaks mid-way', stream: true } }, async (request, reply) => {
      const body = new PassThrough()
      body.write('{"n":1}\n')
      setTimeout(() => body.destroy(new Error('disk gone')), 20)
      return reply.type('application/x-ndjson').send(body)
    })
    app.get('/late-fail', { svc: { name: 'lateFail', description: 'Fails after progress' } }, async (request) => {
      request.svc.progress(1)
      throw Object.assign(new Error('no stock'), { statusCode: 409 })
    })
  }
}

export interface StreamServer {
  app: FastifyInstance
  origin: string
  log: StreamLog
}

/** An app with the plugin and the streaming routes, listening on 127.0.0.1; closed when `t` ends. */
export async function streamServer (
  t: Test,
  content: StreamContent,
  options: Partial<SvcManifestOptions> = {},
  serverOptions: FastifyServerOptions = {}
): Promise<StreamServer> {
  const log = newStreamLog()
  const app = await readyApp(t, options, streamRoutes(log, content), serverOptions)
  return { app, origin: await listening(t, app), log }
}
