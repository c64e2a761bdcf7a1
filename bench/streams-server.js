// The streams benchmark's server, run as a child process (`fork`, with --expose-gc) so that the callers in the
// parent do not share its event loop. One app with the plugin, MCP on and a channel (so that a 2025-11-25 client
// that initializes gets a session), and three `stream: true` commands:
// - `lines`: `reply.send(Readable)` of `count` NDJSON lines of 100 B, one line per write;
// - `ticks`: `count` lines written `interval` ms apart, each carrying the time of its write;
// - `endless`: a line every 10 ms until its `request.svc.signal` aborts (no deadline: `timeout: 0`).
// Times are wall-clock milliseconds, `performance.timeOrigin + performance.now()`, the clock the parent reads
// too; the parent estimates the offset between the two processes' clocks over IPC (`clock`).
import { ServerResponse } from 'node:http'
import { PassThrough, Readable } from 'node:stream'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { setImmediate } from 'node:timers/promises'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { manifestOptions } from './routes.js'

const LINE_BYTES = 100

const now = () => performance.timeOrigin + performance.now()

/** Line `n` of the `lines` stream: `{"n":…,"text":"…"}` padded to 100 bytes with its newline. */
function lineOf (n) {
  const head = `{"n":${n},"text":"`
  return head + 'x'.repeat(LINE_BYTES - head.length - 3) + '"}\n'
}

const LINES = Array.from({ length: 10_000 }, (_, n) => Buffer.from(lineOf(n)))
/** `endless` calls running: started and not yet aborted. */
let active = 0

const app = Fastify()
await app.register(svcManifest, { ...manifestOptions, svc: '0.5.0', mcp: true, channels: { feed: { description: 'A feed' } } })

/**
 * Milliseconds from a `ticks` line's write by the route to the write of its bytes on the caller's response
 * (`res.write`), inside the server: what the relay adds before the socket, free of the caller's scheduling.
 */
const handedOver = { direct: [], streamed: [] }
app.addHook('preHandler', async (request, reply) => {
  const raw = reply.raw
  // The caller's response only (the route's inner response in an execute is not one), and only for `ticks`:
  // the relay rate is measured without this.
  if (!(raw instanceof ServerResponse)) return
  const side = request.url.startsWith('/ticks') ? 'direct' : request.url === '/svc/execute' && request.body?.command === 'ticks' ? 'streamed' : undefined
  if (side === undefined) return
  const write = raw.write
  raw.write = function (chunk, ...rest) {
    const at = /"at":([0-9.]+)/.exec(String(chunk))
    if (at !== null) handedOver[side].push(now() - Number(at[1]))
    return write.call(this, chunk, ...rest)
  }
})

app.get('/lines', {
  schema: { querystring: { type: 'object', properties: { count: { type: 'integer', minimum: 1, maximum: LINES.length, default: LINES.length } } } },
  svc: { name: 'lines', description: 'NDJSON lines of 100 B', stream: true }
}, async (request, reply) => {
  const { count } = request.query
  let sent = 0
  const body = new Readable({
    read () {
      while (sent < count) {
        if (!this.push(LINES[sent++])) return
      }
      this.push(null)
    }
  })
  return reply.type('application/x-ndjson').send(body)
})

app.get('/ticks', {
  schema: {
    querystring: {
      type: 'object',
      properties: { count: { type: 'integer', minimum: 1, default: 100 }, interval: { type: 'number', minimum: 0, default: 2 } }
    }
  },
  svc: { name: 'ticks', description: 'Lines written apart, each with the time of its write', stream: true, timeout: 0 }
}, async (request, reply) => {
  const { count, interval } = request.query
  const { signal } = request.svc
  const body = new PassThrough()
  let n = 0
  const tick = () => {
    if (signal.aborted) return
    const at = now()
    body.write(`{"n":${n},"at":${at}}\n`)
    if (++n === count) body.end()
    else setTimeout(tick, interval)
  }
  setTimeout(tick, interval)
  return reply.type('application/x-ndjson').send(body)
})

app.get('/endless', {
  schema: { querystring: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } },
  svc: { name: 'endless', description: 'A line every 10 ms, for ever', stream: true, timeout: 0 }
}, async (request, reply) => {
  const { key } = request.query
  const { signal } = request.svc
  const body = new PassThrough()
  let n = 0
  const timer = setInterval(() => body.write(`{"n":${n++}}\n`), 10)
  active++
  signal.addEventListener('abort', () => {
    const at = now()
    clearInterval(timer)
    active--
    process.send({ type: 'aborted', key, at, code: signal.reason?.code })
  }, { once: true })
  body.write(`{"n":${n++}}\n`)
  process.send({ type: 'started', key, at: now() })
  return reply.type('application/x-ndjson').send(body)
})

/**
 * CPU µs per piece of what a streamed execute must do to each NDJSON line whatever the code around it: read the
 * line as JSON and write it in a `chunk` frame (`JSON.parse`, then `JSON.stringify` of the frame), with no I/O;
 * repeated until it used 100 ms of CPU (after a warm-up) and averaged.
 */
function pieceFloor () {
  const lines = LINES.map((line) => line.toString().slice(0, -1))
  const frames = (count) => {
    let bytes = 0
    for (let n = 0; n < count; n++) bytes += `data: ${JSON.stringify({ type: 'chunk', data: JSON.parse(lines[n % lines.length]) })}\n\n`.length
    return bytes
  }
  frames(lines.length * 5)
  const before = process.cpuUsage()
  let pieces = 0
  let used = 0
  while (used < 100_000) {
    frames(lines.length)
    pieces += lines.length
    const { user, system } = process.cpuUsage(before)
    used = user + system
  }
  return used / pieces
}

await app.listen({ host: '127.0.0.1', port: 0 })

let profiler
process.on('message', async (message) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send({ type: 'cpu', micros: user + system })
  } else if (message.type === 'floor') {
    process.send({ type: 'floor', micros: pieceFloor() })
  } else if (message.type === 'handed-over') {
    process.send({ type: 'handed-over', ...handedOver })
    handedOver.direct = []
    handedOver.streamed = []
  } else if (message.type === 'clock') {
    process.send({ type: 'clock', at: now() })
  } else if (message.type === 'active') {
    process.send({ type: 'active', active })
  } else if (message.type === 'heap') {
    // Full collections, a turn apart, so that finalisers and weak references settle.
    for (let i = 0; i < 4; i++) {
      globalThis.gc()
      await setImmediate()
    }
    const { heapUsed, external, arrayBuffers } = process.memoryUsage()
    process.send({ type: 'heap', heapUsed, external, arrayBuffers })
  } else if (message.type === 'profile-start') {
    // A CPU profile of the load alone (bench/streams-profile.js): start-up is not in it.
    profiler = new Session()
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
    process.send({ type: 'profile-start' })
  } else if (message.type === 'profile-stop') {
    const { profile } = await profiler.post('Profiler.stop')
    await writeFile(message.path, JSON.stringify(profile))
    profiler.disconnect()
    process.send({ type: 'profile-stop' })
  } else if (message.type === 'close') {
    await app.close()
    process.exit(0)
  }
})
process.send({ type: 'listening', port: app.server.address().port })
