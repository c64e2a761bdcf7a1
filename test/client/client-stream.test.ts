import { PassThrough, Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { CommandError, createManifestClient, ManifestClientError, type ManifestClient, type Progress } from '../../lib/client/index.js'
import { readyApp } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { pause } from '../helpers/sse.js'

// client.execute's signal, timeout and onProgress, and client.stream, against a real listening server with
// real streaming routes (docs/client.md, docs/long-running.md).

interface Log {
  /** Writes the rest of the NDJSON stream. */
  more?: () => void
  /** Why each route's `request.svc.signal` aborted, by command. */
  aborted: Record<string, string>
  /** Commands whose route started. */
  started: string[]
  /** Commands whose `request.raw` emitted `close`. */
  closed: string[]
  /** Pieces the endless route wrote. */
  written: number
}

function routes (log: Log) {
  const watch = (name: string, request: { svc: { signal: AbortSignal }, raw: { on: (event: 'close', listener: () => void) => void } }): void => {
    log.started.push(name)
    const { signal } = request.svc
    signal.addEventListener('abort', () => { log.aborted[name] = String((signal.reason as Error).message) })
    request.raw.on('close', () => { log.closed.push(name) })
  }
  return (app: FastifyInstance): void => {
    app.get('/lines', { svc: { name: 'lines', description: 'NDJSON lines', stream: true } }, async (request, reply) => {
      const body = new PassThrough()
      body.write('{"n":1}\n')
      log.more = () => { body.end('{"n":2}\n"three"\n') }
      return reply.type('application/x-ndjson').send(body)
    })
    app.get('/sse', { svc: { name: 'sse', description: 'SSE with a result event', stream: true } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
      reply.raw.end('data: {"step":1}\n\nevent: result\ndata: {"total":1}\n\n')
    })
    app.get('/binary', { svc: { name: 'binary', description: 'Bytes that are not UTF-8', stream: true } }, async (request, reply) => {
      return reply.type('application/octet-stream').send(Readable.from([Buffer.from([0xff, 0xfe])]))
    })
    app.get('/job', { svc: { name: 'job', description: 'A job that reports progress' } }, async (request) => {
      for (let step = 1; step <= 3; step++) {
        request.svc.progress(step, step === 2 ? { total: 3, message: 'halfway' } : { total: 3 })
        await pause(10)
      }
      return { done: true }
    })
    app.get('/logo', { svc: { name: 'logo', description: 'Binary, not streamed' } }, async (request, reply) => reply.type('image/png').send(Buffer.from([137, 80])))
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
    // Reports progress once, then waits for its signal: only the caller going away ends it.
    app.get('/wait', { svc: { name: 'wait', description: 'Waits until cancelled', timeout: 0 } }, async (request) => {
      watch('wait', request)
      request.svc.progress(1, { message: 'started' })
      await new Promise((resolve) => request.svc.signal.addEventListener('abort', resolve))
      return 'cancelled'
    })
    app.get('/locked', { svc: { name: 'locked', description: 'Refuses', stream: true } }, async (request, reply) => reply.code(401).send({ message: 'no' }))
    app.get('/late-fail', { svc: { name: 'lateFail', description: 'Fails after progress' } }, async (request) => {
      request.svc.progress(1)
      throw Object.assign(new Error('no stock'), { statusCode: 409 })
    })
    app.get('/breaks', { svc: { name: 'breaks', description: 'Breaks mid-way', stream: true } }, async (request, reply) => {
      const body = new PassThrough()
      body.write('{"n":1}\n')
      setTimeout(() => body.destroy(new Error('disk gone')), 20)
      return reply.type('application/x-ndjson').send(body)
    })
  }
}

/**
 * Every connection is closed on close: after a fetch is aborted, Node's fetch may keep a spare connection
 * open (see test/client/streams.test.ts).
 */
async function setup (t: Test): Promise<{ client: ManifestClient, log: Log }> {
  const log: Log = { aborted: {}, started: [], closed: [], written: 0 }
  const app = await readyApp(t, {}, routes(log), { forceCloseConnections: true })
  const origin = await listening(t, app)
  return { client: createManifestClient({ url: `${origin}/.well-known/svc.json` }), log }
}

async function until (condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await pause(5)
  }
}

async function rejection (promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return await promise.then(() => { throw new Error('expected a rejection') }, (error: Error & Record<string, unknown>) => error)
}

t.test('stream(): each piece as the route writes it, then the final result as the return value', async (t) => {
  const { client, log } = await setup(t)
  const lines = client.stream('lines')
  // The first piece is read before the route writes the second.
  t.same(await lines.next(), { done: false, value: { n: 1 } })
  log.more!()
  t.same(await lines.next(), { done: false, value: { n: 2 } })
  t.same(await lines.next(), { done: false, value: 'three' })
  t.same(await lines.next(), { done: true, value: null }, 'NDJSON has no final result')

  const pieces: unknown[] = []
  const sse = client.stream('sse')
  let step = await sse.next()
  for (; step.done !== true; step = await sse.next()) pieces.push(step.value)
  t.same(pieces, [{ step: 1 }])
  t.same(step.value, { total: 1 }, 'the SSE event named result is the return value')
})

t.test('stream(): bytes that are not UTF-8 are a Buffer; a binary result a Blob; progress goes to onProgress', async (t) => {
  const { client } = await setup(t)
  const binary: unknown[] = []
  for await (const piece of client.stream('binary')) binary.push(piece)
  t.ok(Buffer.isBuffer(binary[0]))
  t.same([...(binary[0] as Buffer)], [0xff, 0xfe])

  const logo = client.stream('logo')
  const end = await logo.next()
  t.equal(end.done, true)
  t.type(end.value, Blob)
  t.equal((end.value as Blob).type, 'image/png')

  const reports: Progress[] = []
  const job = client.stream('job', {}, { onProgress: (progress) => reports.push(progress) })
  t.same(await job.next(), { done: true, value: { done: true } })
  t.same(reports, [{ progress: 1, total: 3 }, { progress: 2, total: 3, message: 'halfway' }, { progress: 3, total: 3 }])
  // Without onProgress, progress frames are passed over.
  t.same(await client.stream('job').next(), { done: true, value: { done: true } })
})

t.test('stream(): leaving the loop early aborts the request, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const seen: unknown[] = []
  for await (const piece of client.stream('endless')) {
    seen.push(piece)
    if (seen.length === 3) break
  }
  t.same(seen, [{ tick: 1 }, { tick: 2 }, { tick: 3 }])
  await until(() => log.aborted.endless !== undefined, 'the route\'s signal')
  t.match(log.aborted.endless, /went away/)
  await until(() => log.closed.includes('endless'), 'the route\'s request to close')
  const written = log.written
  await pause(100)
  t.ok(log.written <= written + 1, 'the route stopped writing')
})

t.test('stream(): the caller\'s signal aborts it mid-way, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const controller = new AbortController()
  const endless = client.stream('endless', {}, { signal: controller.signal })
  t.same(await endless.next(), { done: false, value: { tick: 1 } })
  controller.abort(new Error('enough'))
  const error = await rejection((async () => { for await (const piece of endless) t.ok(piece) })())
  t.type(error, ManifestClientError)
  t.match(error, { code: 'SVC_CLIENT_ABORTED', cause: { message: 'enough' } })
  await until(() => log.aborted.endless !== undefined, 'the route\'s signal')

  const already = await rejection(client.stream('lines', {}, { signal: controller.signal }).next())
  t.match(already, { code: 'SVC_CLIENT_ABORTED' }, 'a signal aborted already sends nothing')
})

t.test('stream(): a refusal before the stream rejects with its code; an error frame throws with its code', async (t) => {
  const { client } = await setup(t)
  const refused = await rejection(client.stream('locked').next())
  t.type(refused, CommandError)
  t.match(refused, { code: 'UNAUTHORIZED', status: 401, message: 'no' })
  t.match(await rejection(client.stream('nope').next()), { code: 'UNKNOWN_COMMAND', status: 404 })

  const broken = client.stream('breaks')
  t.same(await broken.next(), { done: false, value: { n: 1 } })
  const failed = await rejection(broken.next())
  t.type(failed, CommandError)
  t.match(failed, { code: 'INTERNAL_ERROR', status: 502 })
  t.same(await broken.next(), { done: true, value: undefined }, 'a failed stream is over')

  t.match(await rejection(client.stream('lateFail').next()), { name: 'CommandError', code: 'CONFLICT', status: 409, message: 'no stock' })
})

t.test('execute() with onProgress: a streamed execute, progress reports, then the result', async (t) => {
  const { client } = await setup(t)
  const reports: Progress[] = []
  t.same(await client.execute('job', {}, { onProgress: (progress) => reports.push(progress) }), { done: true })
  t.same(reports, [{ progress: 1, total: 3 }, { progress: 2, total: 3, message: 'halfway' }, { progress: 3, total: 3 }])

  const refused = await rejection(client.execute('locked', {}, { onProgress: () => {} }))
  t.type(refused, CommandError)
  t.match(refused, { code: 'UNAUTHORIZED', status: 401 })
  const late: Progress[] = []
  t.match(await rejection(client.execute('lateFail', {}, { onProgress: (progress) => late.push(progress) })), { name: 'CommandError', code: 'CONFLICT', status: 409 })
  t.same(late, [{ progress: 1 }])

  // A streaming command's pieces are not kept: its result is done's, as stream() returns it.
  t.same(await client.execute('sse', {}, { onProgress: () => {} }), { total: 1 })
  const logo = await client.execute<Blob>('logo', {}, { onProgress: () => {} })
  t.equal(logo.type, 'image/png')
})

t.test('execute(): its signal aborts the request, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const controller = new AbortController()
  const call = client.execute('wait', {}, { signal: controller.signal })
  await until(() => log.started.includes('wait'), 'the route to start')
  controller.abort()
  t.match(await rejection(call), { code: 'SVC_CLIENT_ABORTED' })
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  t.match(log.aborted.wait, /went away/)
})

t.test('execute(): a timeout of its own rejects with SVC_CLIENT_TIMEOUT and cancels the route', async (t) => {
  const { client, log } = await setup(t)
  const began = Date.now()
  const error = await rejection(client.execute('wait', {}, { timeout: 300 }))
  t.type(error, ManifestClientError)
  t.match(error, { code: 'SVC_CLIENT_TIMEOUT', message: /did not complete within 300 ms \(timeout\)/ })
  t.ok(Date.now() - began < 3000, 'in its time, not the client\'s 10 s')
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  delete log.aborted.wait

  // Streamed: the time limit holds while the stream is read, not only until it opens.
  const reports: Progress[] = []
  const streamed = await rejection(client.execute('wait', {}, { timeout: 300, onProgress: (progress) => reports.push(progress) }))
  t.match(streamed, { code: 'SVC_CLIENT_TIMEOUT' })
  t.same(reports, [{ progress: 1, message: 'started' }])
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')

  for (const timeout of [0, -1, 2 ** 31, Number.NaN, '5' as unknown as number]) {
    t.match(await rejection(client.execute('job', {}, { timeout })), { code: 'SVC_CLIENT_INVALID_OPTION', message: /^timeout must be/ }, String(timeout))
  }
})
