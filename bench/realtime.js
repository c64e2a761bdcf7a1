// Events and channels (DESIGN §11), one measurement per fresh process, printed as one JSON line:
//   node bench/realtime.js fanout <rounds>     one emit to 1,000 SSE subscribers vs the same frame to 1,000 raw responses
//   node bench/realtime.js redis <samples>     emit on instance A → frame read on instance B, through a real redis-server
//   node --expose-gc bench/realtime.js memory <cycles>   heap per idle subscriber; heap after connect/disconnect cycles
import { fork, spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { connect, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { createParser } from 'eventsource-parser'
import svcManifest from '../dist/index.js'

const SUBSCRIBERS = 1000
const [mode, count] = [process.argv[2], Number(process.argv[3])]
const required = { name: 'Bench', description: 'Realtime benchmark', version: '1.0.0', baseUrl: 'http://127.0.0.1' }
const events = { tick: { description: 'A tick', data: { type: 'object', properties: { n: { type: 'number' }, note: { type: 'string' } } } } }
// No heartbeat during a measurement: only the frames measured travel.
const realtime = { heartbeat: 3600 }
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'close' }

if (mode === 'clients') {
  clientsProcess()
} else {
  const result = mode === 'fanout' ? await fanout(count) : mode === 'redis' ? await redisLatency(count) : await memory(count)
  console.log(JSON.stringify(result))
  process.exit(0)
}

/**
 * The same server serves 1,000 subscribers of the plugin's events stream and 1,000 raw responses held by
 * a plain route (the clients run in a child process). Each round times the server's work for one frame to all 1,000, up to the moment the
 * bytes were handed to the kernel (the emit call, against a loop of `res.write(frame)`), then waits until
 * every client read it. Rounds alternate; the medians are compared.
 */
async function fanout (rounds) {
  const app = Fastify()
  await app.register(svcManifest, { ...required, events, realtime })
  const raws = []
  app.get('/raw', (request, reply) => {
    reply.hijack()
    reply.raw.writeHead(200, SSE_HEADERS)
    reply.raw.flushHeaders()
    raws.push(reply.raw)
  })
  const origin = await listen(app)
  // The clients run in another process, so the time measured here is the server's alone.
  const clients = fork(fileURLToPath(import.meta.url), ['clients'])
  const ask = (message) => new Promise((resolve) => {
    clients.once('message', resolve)
    clients.send(message)
  })
  await ask({ connect: '/svc/events', origin, n: SUBSCRIBERS })
  await ask({ connect: '/raw', origin, n: SUBSCRIBERS })
  const payload = { n: 1, note: 'x'.repeat(60) }
  const frame = `id: 1\nevent: tick\ndata: ${JSON.stringify(payload)}\n\n`
  const send = [
    () => app.svc.emit('tick', payload),
    () => { for (const response of raws) response.write(frame) }
  ]
  const paths = ['/svc/events', '/raw']
  const times = [[], []]
  for (let round = 0; round <= rounds; round++) {
    // Alternate which goes first; round 0 warms up and is not counted.
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const started = process.hrtime.bigint()
      send[index]()
      await flushed()
      const took = Number(process.hrtime.bigint() - started) / 1e6
      await ask({ until: paths[index], frames: round + 1 })
      if (round > 0) times[index].push(took)
    }
  }
  clients.kill()
  await app.close()
  const [pluginMs, rawMs] = times.map(median)
  return { subscribers: SUBSCRIBERS, rounds, frameBytes: frame.length, pluginMs, rawMs, pluginRate: SUBSCRIBERS / pluginMs * 1000, rawRate: SUBSCRIBERS / rawMs * 1000 }
}

/** The client side of `fanout`, in its own process: connects on request, reports when every client read `frames` frames. */
function clientsProcess () {
  const groups = new Map()
  process.on('message', async (message) => {
    if (message.connect !== undefined) {
      groups.set(message.connect, await connectMany(message.origin, message.connect, message.n))
    } else {
      await allReceived(groups.get(message.until), message.frames)
    }
    process.send('done')
  })
}

/**
 * Two instances on one redis-server (started here on a free port, no persistence): each sample emits on A
 * with the send time in the payload and measures when B's subscriber has read and parsed the frame.
 */
async function redisLatency (samples) {
  const port = await freePort()
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    await ready(redis)
    const url = `redis://127.0.0.1:${port}`
    const a = Fastify()
    const b = Fastify()
    for (const app of [a, b]) await app.register(svcManifest, { ...required, events, realtime: { ...realtime, redis: url } })
    await a.ready()
    const originB = await listen(b)
    const latencies = []
    let resolveNext = () => {}
    const subscriber = request(`${originB}/svc/events`, { agent: false })
    subscriber.on('response', (response) => {
      const parser = createParser({
        onEvent: (event) => {
          const sentAt = BigInt(JSON.parse(event.data).note)
          latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6)
          resolveNext()
        }
      })
      response.setEncoding('utf8').on('data', (chunk) => parser.feed(chunk))
    })
    subscriber.end()
    await once(subscriber, 'response')
    for (let i = 0; i < samples + 50; i++) {
      const received = new Promise((resolve) => { resolveNext = resolve })
      a.svc.emit('tick', { n: i, note: String(process.hrtime.bigint()) })
      await received
      await sleep(1)
    }
    subscriber.destroy()
    await Promise.all([a.close(), b.close()])
    // The first 50 warm up the connections and the JIT.
    const sorted = latencies.slice(50).sort((x, y) => x - y)
    return { samples, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] }
  } finally {
    redis.kill()
  }
}

/**
 * Heap (after a full GC) before and after `cycles` connect/disconnect cycles of one subscriber, after a
 * warm-up: what stays is growth. Then with 1,000 idle subscribers of the events stream, against 1,000 raw
 * responses held by a plain route: the clients live in this process too, so the difference is what the
 * plugin keeps per subscriber.
 */
async function memory (cycles) {
  const app = Fastify()
  await app.register(svcManifest, { ...required, events, realtime })
  const held = []
  app.get('/held', (request, reply) => {
    reply.hijack()
    reply.raw.writeHead(200, SSE_HEADERS)
    reply.raw.flushHeaders()
    held.push(reply.raw)
    reply.raw.once('close', () => held.splice(held.indexOf(reply.raw), 1))
  })
  const origin = await listen(app)
  const heap = async () => {
    await sleep(50)
    global.gc()
    global.gc()
    return process.memoryUsage().heapUsed
  }

  // Cycles first, on a fresh heap, after a warm-up that brings every lazily built structure into being.
  const warmUp = 2000
  for (let i = 0; i < warmUp; i++) await cycle(origin)
  await settle(app)
  const before = await heap()
  for (let i = 0; i < cycles; i++) await cycle(origin)
  await settle(app)
  const after = await heap()

  const empty = await heap()
  const raw = await connectMany(origin, '/held', SUBSCRIBERS)
  const withRaw = await heap()
  await closeAll(raw, app)
  const subscribers = await connectMany(origin, '/svc/events', SUBSCRIBERS)
  const withSubscribers = await heap()
  await closeAll(subscribers, app)
  await app.close()
  return {
    subscribers: SUBSCRIBERS,
    perRawResponse: (withRaw - empty) / SUBSCRIBERS,
    perSubscriber: (withSubscribers - empty) / SUBSCRIBERS,
    pluginPerSubscriber: (withSubscribers - withRaw) / SUBSCRIBERS,
    cycles,
    growth: after - before,
    growthPerCycle: (after - before) / cycles
  }
}

/** One subscriber: connects, waits for the stream's headers, leaves. */
async function cycle (origin) {
  const [client] = await connectMany(origin, '/svc/events', 1)
  client.destroy()
}

async function closeAll (clients, app) {
  for (const client of clients) client.destroy()
  await settle(app)
}

/** Waits until the server has no connection left. */
async function settle (app) {
  for (;;) {
    const open = await new Promise((resolve) => app.server.getConnections((error, n) => resolve(error ? 0 : n)))
    if (open === 0) return
    await sleep(10)
  }
}

/**
 * `n` raw TCP clients of `path`, each counting the SSE frames it read (a frame ends with a blank line;
 * the count survives a blank line split across two reads). Resolves once every response's headers arrived.
 */
async function connectMany (origin, path, n) {
  const { port } = new URL(origin)
  const clients = []
  for (let i = 0; i < n; i += 100) {
    const batch = []
    for (let j = i; j < Math.min(n, i + 100); j++) batch.push(connectOne(Number(port), path))
    clients.push(...await Promise.all(batch))
  }
  return clients
}

function connectOne (port, path) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    socket.frames = 0
    let headers = false
    let last = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      let text = last + chunk
      if (!headers) {
        const end = text.indexOf('\r\n\r\n')
        if (end === -1) return
        headers = true
        text = text.slice(end + 4)
        resolve(socket)
      }
      socket.frames += text.split('\n\n').length - 1
      last = text.endsWith('\n') && !text.endsWith('\n\n') ? '\n' : ''
    })
    socket.on('error', reject)
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`)
  })
}

/**
 * Node corks a response's socket while writing and sends on the next tick: the writes reach the kernel
 * once the current turn of the event loop has run its ticks, which `setImmediate` waits for.
 */
function flushed () {
  return new Promise((resolve) => setImmediate(resolve))
}

async function allReceived (clients, frames) {
  while (clients.some((client) => client.frames < frames)) await sleep(1)
}

async function listen (app) {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${app.server.address().port}`
}

async function freePort () {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  await once(server, 'close')
  return port
}

/** Resolves once redis-server says it accepts connections; its output keeps being read (and dropped). */
function ready (redis) {
  return new Promise((resolve, reject) => {
    let output = ''
    redis.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      if (output.includes('Ready to accept connections')) resolve()
    })
    redis.once('error', reject)
    redis.once('exit', () => reject(new Error(`redis-server did not start:\n${output}`)))
  })
}

function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

function percentile (sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]
}
