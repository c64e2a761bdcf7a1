import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { logCollector, settledMemory } from '../helpers/process.js'
import { pause, subscribe } from '../helpers/sse.js'
import { listen } from '../helpers/net.js'

const options: Partial<SvcManifestOptions> = {
  svc: '0.5.0',
  events: { tick: { description: 'A tick' } },
  channels: { cart: { description: 'Cart' } }
}

t.test('app.close() with 100 open streams ends them all within 1 s', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...options })
  const origin = await listen(app)
  const streams = await Promise.all(Array.from({ length: 100 }, (_, index) =>
    subscribe(origin, index % 2 === 0 ? '/svc/events' : `/svc/channels/cart/key-${index}`)))
  app.svc.emit('tick', { n: 1 })
  for (const stream of streams) await stream.frameCount(1)
  const started = Date.now()
  await app.close()
  const took = Date.now() - started
  t.ok(took < 1000, `closed in ${took} ms`)
  await Promise.all(streams.map((stream) => stream.end(1000)))
  t.ok(streams.every((stream) => stream.response.complete), 'every stream ended cleanly, not cut')
})

t.test('a subscriber that never reads is dropped past maxBufferBytes (default 1 MiB); the others get everything; memory stays bounded', async (t) => {
  const logs = logCollector()
  const app = Fastify({ logger: { level: 'warn', stream: logs.stream } })
  const maxBufferBytes = 1024 * 1024
  await app.register(svcManifest, { ...requiredOptions, ...options })
  const serverSockets: Socket[] = []
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket))
  const origin = await listen(app)
  const { port } = new URL(origin)

  // A client that sends its request and then never reads a byte.
  const stalled = connect(Number(port), '127.0.0.1')
  await once(stalled, 'connect')
  stalled.pause()
  stalled.write('GET /svc/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n')
  const reader = await subscribe(origin, '/svc/events', {}, { keepData: false })
  await pause(50)
  t.equal(serverSockets.length, 2)

  const payload = { blob: 'x'.repeat(64 * 1024) }
  const frameBytes = JSON.stringify(payload).length + 64
  const before = await settledMemory()
  const rounds = 200
  const perRound = 4
  let sent = 0
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) app.svc.emit('tick', payload)
    sent += perRound
    await reader.frameCount(sent, 5000)
  }
  const after = await settledMemory()
  const megabytesSent = (sent * frameBytes) / 2 ** 20
  t.equal(reader.frames.length, sent, `the reading subscriber received all ${megabytesSent.toFixed(0)} MiB`)

  const dropped = logs.lines.find((line) => /does not read/.test(String(line.msg)))
  t.ok(dropped, 'the drop is logged')
  t.equal(dropped?.limit, maxBufferBytes)
  t.ok((dropped?.bufferedBytes as number) <= maxBufferBytes + frameBytes, `at most one frame over the limit (${String(dropped?.bufferedBytes)} bytes)`)
  const stalledOnServer = serverSockets.find((socket) => socket.destroyed)
  t.ok(stalledOnServer, 'the stalled socket is closed by the server')
  t.equal(serverSockets.filter((socket) => socket.destroyed).length, 1, 'only the stalled one')
  const grown = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20
  t.ok(grown < 4, `memory grew ${grown.toFixed(1)} MiB while ${megabytesSent.toFixed(0)} MiB went to a subscriber that never read`)
  stalled.destroy()
  reader.close()
  await app.close()
})

t.test('a stream asked for while the app closes is refused with 503, and close is not held', async (t) => {
  let closing: () => void = () => {}
  const closeStarted = new Promise<void>((resolve) => { closing = resolve })
  let entered: () => void = () => {}
  const checking = new Promise<void>((resolve) => { entered = resolve })
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    ...options,
    auth: {
      type: 'bearer',
      description: 'Tokens checked until the app closes',
      async verify (token) {
        entered()
        await closeStarted
        return { sub: token }
      }
    }
  })
  app.addHook('preClose', (done) => {
    closing()
    done()
  })
  const origin = await listen(app)
  const late = subscribe(origin, '/svc/events', { authorization: 'Bearer alice' })
  await checking
  const closed = app.close()
  const response = await late
  t.equal(response.status, 503)
  await response.end()
  t.match(response.json(), { statusCode: 503, code: 'FST_SVC_CLOSED', message: 'The app is closing: no new stream is opened while the app closes.' })
  await closed
})

t.test('channel stream asked for while the app closes: 503 after the state was read', async (t) => {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  const app: FastifyInstance = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    ...options,
    channels: {
      cart: {
        description: 'Cart',
        async authorize () {
          setImmediate(() => { app.close().catch(t.error) })
          await released
          return true
        }
      }
    }
  })
  app.addHook('preClose', (done) => {
    release()
    done()
  })
  const origin = await listen(app)
  const late = await subscribe(origin, '/svc/channels/cart/alice')
  t.equal(late.status, 503)
  await late.end()
  t.match(late.json(), { code: 'FST_SVC_CLOSED' })
})

t.test('events emitted while the app closes are not written to ended streams', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...options })
  app.addHook('preClose', (done) => {
    // The plugin's own preClose ran first: the streams are ended, their close events not yet handled.
    app.svc.emit('tick', { late: true })
    done()
  })
  const origin = await listen(app)
  const subscriber = await subscribe(origin, '/svc/events')
  await app.close()
  await subscriber.end()
  t.same(subscriber.frames, [], 'nothing after the end')
})

t.test('app.close() does not wait for a subscriber that stopped reading with bytes still queued', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...options })
  const serverSockets: Socket[] = []
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket))
  const origin = await listen(app)
  const stalled = connect(Number(new URL(origin).port), '127.0.0.1')
  await once(stalled, 'connect')
  stalled.pause()
  stalled.write('GET /svc/events HTTP/1.1\r\nHost: localhost\r\n\r\n')
  await pause(50)
  const payload = { blob: 'x'.repeat(64 * 1024) }
  for (let i = 0; i < 200 && serverSockets[0].writableLength === 0; i++) {
    app.svc.emit('tick', payload)
    await pause(1)
  }
  t.ok(serverSockets[0].writableLength > 0, 'bytes are queued for the stalled subscriber')
  t.ok(serverSockets[0].writableLength < 1024 * 1024, 'but fewer than the limit')
  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 1000, 'closed at once')
  t.ok(serverSockets[0].destroyed)
  stalled.destroy()
})
