// Streams and cancellation (DESIGN §11, docs/long-running.md), against bench/streams-server.js in a child process:
// - relay rate: a streamed execute of a route that sends 10,000 NDJSON lines of 100 B against a GET of the same
//   route, by the server's CPU time per piece (and pieces per second), rounds alternating;
// - latency: from the route's write of a line to the caller's read of it, read directly and through a streamed
//   execute; and, inside the server, to the write of its bytes on the caller's response;
// - cancellation: from the caller's abort (execute's connection closed; MCP `notifications/cancelled` in a
//   2025-11-25 session; a 2026-07-28 request closed) to the route's `request.svc.signal` aborting;
// - memory: the server's heap after full collections, before and after abandoned calls of an endless stream.
// The two processes read the same wall clock, `performance.timeOrigin + performance.now()`; the offset between
// their readings is estimated over IPC (the exchange of least round trip, NTP's way) and taken out.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { median, waitForBuild } from './stats.js'
import { openSession } from './mcp.js'

/** Lines per call of `lines`, of 100 B each. */
export const LINES = 10_000
export const LINE_BYTES = 100
/** Callers reading at once during a round of the relay rate. */
const CONNECTIONS = 4
/** Pieces of the latency measure left out at the start of each side, while the connection warms up. */
const LATENCY_WARMUP = 20
/** Milliseconds between two writes of the latency route. */
const TICK_INTERVAL = 2
/** Abandoned calls at once in the memory measure. */
const ABANDON_BATCH = 10
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const ACCEPT = 'application/json, text/event-stream'

const now = () => performance.timeOrigin + performance.now()

/** The relay rate and the write → read latency (the first figure of DESIGN §11's streams). */
export async function measureStreams ({ rounds, duration, latencySamples }) {
  const server = await startServer()
  try {
    const direct = { method: 'GET', path: `/lines?count=${LINES}` }
    const streamed = executeTarget('lines', { count: LINES })
    await assertSamePieces(server.port, direct, streamed)
    await loadRound(server, direct, 1)
    await loadRound(server, streamed, 1)
    const sides = { direct: [], streamed: [] }
    for (let round = 0; round < rounds; round++) {
      sides.direct.push(await loadRound(server, direct, duration))
      sides.streamed.push(await loadRound(server, streamed, duration))
    }
    const clock = await clockOffset(server)
    // Alternating blocks, one call each: a shared machine's drift falls on both sides alike.
    const blocks = Math.max(2, Math.round(latencySamples / 500))
    const count = Math.ceil(latencySamples / blocks) + LATENCY_WARMUP
    const latency = { direct: [], streamed: [] }
    const inServer = { direct: [], streamed: [] }
    await server.ask('handed-over')
    for (let block = 0; block < blocks; block++) {
      latency.direct.push(...await latencies(server.port, { method: 'GET', path: `/ticks?count=${count}&interval=${TICK_INTERVAL}` }, clock.offset, false, count))
      latency.streamed.push(...await latencies(server.port, executeTarget('ticks', { count, interval: TICK_INTERVAL }), clock.offset, true, count))
      const handedOver = await server.ask('handed-over')
      for (const side of ['direct', 'streamed']) {
        if (handedOver[side].length !== count) throw new Error(`the server saw ${handedOver[side].length} lines of ticks written to the ${side} caller's response, not ${count}`)
        inServer[side].push(...handedOver[side].slice(LATENCY_WARMUP))
      }
    }
    const floor = await server.ask('floor')
    const of = (side, field) => median(sides[side].map((round) => round[field]))
    return {
      cpuRatios: sides.direct.map((round, index) => round.cpuPerPiece / sides.streamed[index].cpuPerPiece),
      rateRatios: sides.direct.map((round, index) => sides.streamed[index].rate / round.rate),
      directCpu: of('direct', 'cpuPerPiece'),
      streamedCpu: of('streamed', 'cpuPerPiece'),
      directRate: of('direct', 'rate'),
      streamedRate: of('streamed', 'rate'),
      clock,
      floor: floor.micros,
      latency: { direct: percentiles(latency.direct), streamed: percentiles(latency.streamed) },
      inServer: { direct: percentiles(inServer.direct), streamed: percentiles(inServer.streamed) }
    }
  } finally {
    await stopServer(server)
  }
}

/** Abort → `request.svc.signal` latency by each way a caller cancels, and the heap over abandoned calls. */
export async function measureCancellation ({ cancelSamples, abandonedCalls }) {
  const server = await startServer()
  try {
    const clock = await clockOffset(server)
    const base = `http://127.0.0.1:${server.port}`
    const session = await openSession(base)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const ways = {
      execute: () => cancelExecute(server),
      session: () => cancelInSession(server, session, agent),
      modern: () => cancelModern(server)
    }
    const latency = {}
    try {
      for (const name of Object.keys(ways)) latency[name] = []
      for (let sample = 0; sample < cancelSamples + 5; sample++) {
        for (const [name, cancel] of Object.entries(ways)) {
          const { abortedAt, signalAt, code } = await cancel()
          if (code !== 'INTERNAL_ERROR') throw new Error(`${name}: the route's signal aborted with ${code}, not as its caller went away`)
          if (sample >= 5) latency[name].push(signalAt - (abortedAt + clock.offset))
        }
      }
      const memory = {
        execute: await abandonedHeap(server, () => abandonExecute(server), abandonedCalls),
        session: await abandonedHeap(server, () => cancelInSession(server, session, agent), abandonedCalls)
      }
      return { clock, latency: Object.fromEntries(Object.entries(latency).map(([name, values]) => [name, percentiles(values)])), memory, samples: cancelSamples }
    } finally {
      agent.destroy()
    }
  } finally {
    await stopServer(server)
  }
}

export function executeTarget (command, params) {
  return { method: 'POST', path: '/svc/execute', body: JSON.stringify({ command, params, stream: true }) }
}

/** Sends `target` on `agent` (or a connection of its own); resolves with the response, its head read. */
function send (port, { method, path, body, headers = {} }, agent = false) {
  return new Promise((resolve, reject) => {
    const head = body === undefined ? headers : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers }
    const outgoing = request({ agent, host: '127.0.0.1', port, method, path, headers: head })
    outgoing.on('response', (response) => resolve({ outgoing, response }))
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

async function text (port, target) {
  const { response } = await send(port, target)
  response.setEncoding('utf8')
  let all = ''
  for await (const chunk of response) all += chunk
  if (response.statusCode !== 200) throw new Error(`${target.method} ${target.path} answered ${response.statusCode}: ${all}`)
  return { all, type: response.headers['content-type'] }
}

/** The streamed execute must relay every line of the route as one piece, in order, then `done`, or the comparison means nothing. */
async function assertSamePieces (port, direct, streamed) {
  const lines = (await text(port, direct)).all.split('\n')
  if (lines.pop() !== '' || lines.length !== LINES || lines.some((line) => line.length !== LINE_BYTES - 1)) {
    throw new Error(`the route did not answer ${LINES} lines of ${LINE_BYTES} B`)
  }
  const { all, type } = await text(port, streamed)
  if (!type.startsWith('text/event-stream')) throw new Error(`the streamed execute answered ${type}: ${all.slice(0, 200)}`)
  const frames = all.split('\n\n').filter((frame) => frame !== '').map((frame) => JSON.parse(frame.slice('data: '.length)))
  const done = frames.pop()
  if (done?.type !== 'done' || frames.length !== LINES || frames.some((frame, n) => frame.type !== 'chunk' || JSON.stringify(frame.data) !== lines[n])) {
    throw new Error(`the streamed execute did not relay the ${LINES} lines as pieces: ${all.slice(0, 200)} … ${JSON.stringify(done)}`)
  }
}

/**
 * One round: `CONNECTIONS` callers, each on its own keep-alive connection, call `target` one call after another
 * for `duration` s and read each body to its end. Server CPU µs per piece, and pieces per second.
 */
export async function loadRound (server, target, duration) {
  const before = await server.ask('cpu')
  const began = performance.now()
  const deadline = began + duration * 1000
  let calls = 0
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      while (performance.now() < deadline) {
        const { response } = await send(server.port, target, agent)
        if (response.statusCode !== 200) throw new Error(`${target.method} ${target.path} answered ${response.statusCode}`)
        response.resume()
        await once(response, 'end')
        calls++
      }
    } finally {
      agent.destroy()
    }
  }))
  const elapsed = performance.now() - began
  const after = await server.ask('cpu')
  return { cpuPerPiece: (after.micros - before.micros) / (calls * LINES), rate: calls * LINES / elapsed * 1000 }
}

/**
 * Milliseconds from the route's write of each line (the time it carries, on the server's clock) to the moment
 * the caller's `data` event delivered the chunk that completed it, on the caller's clock moved to the server's.
 */
async function latencies (port, target, offset, streamed, count) {
  const { response } = await send(port, target)
  response.setEncoding('utf8')
  const samples = []
  let pending = ''
  const separator = streamed ? '\n\n' : '\n'
  for await (const chunk of response) {
    const readAt = now() + offset
    pending += chunk
    const parts = pending.split(separator)
    pending = parts.pop()
    for (const part of parts) {
      if (part === '') continue
      const value = streamed ? JSON.parse(part.slice('data: '.length)) : JSON.parse(part)
      if (streamed && value.type !== 'chunk') continue
      samples.push(readAt - (streamed ? value.data : value).at)
    }
  }
  if (response.statusCode !== 200 || samples.length !== count) {
    throw new Error(`${target.method} ${target.path}: ${response.statusCode}, ${samples.length} pieces read`)
  }
  return samples.slice(LATENCY_WARMUP)
}

let keys = 0

/** A streamed execute of `endless`, its first piece read, then its connection closed. */
async function cancelExecute (server) {
  const key = `e${keys++}`
  const { started, aborted } = server.call(key)
  const { outgoing, response } = await send(server.port, executeTarget('endless', { key }))
  await started
  await once(response, 'data')
  const abortedAt = now()
  outgoing.destroy()
  const { at, code } = await aborted
  return { abortedAt, signalAt: at, code }
}

/** The memory measure's abandoned call: a streamed execute of `endless` closed after its first piece; resolves once the route's signal aborted. */
async function abandonExecute (server) {
  const key = `a${keys++}`
  const { aborted } = server.call(key)
  const { outgoing, response } = await send(server.port, executeTarget('endless', { key }))
  await once(response, 'data')
  outgoing.destroy()
  await aborted
}

/** `tools/call` of `endless` in a 2025-11-25 session, cancelled once the route runs by `notifications/cancelled`. */
async function cancelInSession (server, session, agent) {
  const key = `s${keys++}`
  const id = keys
  const { started, aborted } = server.call(key)
  const headers = { accept: ACCEPT, 'mcp-protocol-version': LEGACY, 'mcp-session-id': session }
  const outgoing = post(server.port, headers, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'endless', arguments: { key } } })
  await started
  const abortedAt = now()
  const { response } = await send(server.port, {
    method: 'POST',
    path: '/mcp',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'no longer wanted' } })
  }, agent)
  response.resume()
  const { at, code } = await aborted
  // A cancelled call is not answered; its connection is let go.
  outgoing.destroy()
  return { abortedAt, signalAt: at, code }
}

/** POSTs `message` to /mcp on a connection of its own, whose answer is not read. */
function post (port, headers, message) {
  const body = JSON.stringify(message)
  const outgoing = request({ agent: false, host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } })
  outgoing.on('error', () => {})
  outgoing.on('response', (response) => {
    response.on('error', () => {})
    response.resume()
  })
  outgoing.end(body)
  return outgoing
}

/** A 2026-07-28 `tools/call` of `endless` (no session), cancelled once the route runs by closing its request. */
async function cancelModern (server) {
  const key = `m${keys++}`
  const { started, aborted } = server.call(key)
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {}
  }
  const headers = { accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'endless' }
  const outgoing = post(server.port, headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'endless', arguments: { key }, _meta: meta } })
  await started
  const abortedAt = now()
  outgoing.destroy()
  const { at, code } = await aborted
  return { abortedAt, signalAt: at, code }
}

/**
 * The server's heap after full collections before and after `count` abandoned calls (`ABANDON_BATCH` at once),
 * each ended (its signal aborted) before the second reading. As many calls go before the first reading: what
 * the first calls leave once (compiled code, Node's pools of parsers and sockets) is not growth per call.
 */
async function abandonedHeap (server, abandon, count) {
  const batches = async (total) => {
    for (let done = 0; done < total; done += ABANDON_BATCH) {
      await Promise.all(Array.from({ length: Math.min(ABANDON_BATCH, total - done) }, abandon))
    }
  }
  await batches(count)
  await settled(server)
  const before = await server.ask('heap')
  await batches(count)
  await settled(server)
  const after = await server.ask('heap')
  return { count, before: before.heapUsed, after: after.heapUsed, growth: after.heapUsed - before.heapUsed, external: after.external - before.external }
}

/** Waits until no `endless` call runs in the server. */
async function settled (server) {
  for (let waited = 0; (await server.ask('active')).active !== 0; waited += 10) {
    if (waited > 10_000) throw new Error('endless calls still run 10 s after their callers went away')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * The offset of the server's clock from this process's (server = here + offset), from the IPC exchange of
 * least round trip among 50: the offset is known to ± half that round trip.
 */
async function clockOffset (server) {
  let best
  for (let exchange = 0; exchange < 50; exchange++) {
    const sent = now()
    const { at } = await server.ask('clock')
    const received = now()
    if (best === undefined || received - sent < best.roundTrip) best = { roundTrip: received - sent, offset: at - (sent + received) / 2 }
  }
  return best
}

function percentiles (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (share) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] }
}

/** The server in a child process, with --expose-gc; `execArgv`: more Node flags (`--cpu-prof` to profile it). */
export async function startServer (execArgv = []) {
  await waitForBuild()
  const child = fork(new URL('./streams-server.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--expose-gc', ...execArgv] })
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new Error(`streams benchmark server exited with code ${code}`) })
  ])
  const waiting = new Map()
  const calls = new Map()
  const callOf = (key) => {
    let call = calls.get(key)
    if (call === undefined) {
      call = {}
      call.started = new Promise((resolve) => { call.start = resolve })
      call.aborted = new Promise((resolve) => { call.abort = resolve })
      calls.set(key, call)
    }
    return call
  }
  child.on('message', (answer) => {
    if (answer.type === 'started') callOf(answer.key).start(answer)
    else if (answer.type === 'aborted') {
      callOf(answer.key).abort(answer)
      calls.delete(answer.key)
    } else waiting.get(answer.type).shift()(answer)
  })
  return {
    child,
    port: message.port,
    /** Asks the server for one of its readings (`cpu`, `clock`, `heap`, `active`) or to start or stop its profiler. */
    ask (type, fields = {}) {
      return new Promise((resolve) => {
        if (!waiting.has(type)) waiting.set(type, [])
        waiting.get(type).push(resolve)
        child.send({ ...fields, type })
      })
    },
    /** The `started` and `aborted` reports of the `endless` call `key`. */
    call (key) {
      const { started, aborted } = callOf(key)
      return { started, aborted }
    }
  }
}

export async function stopServer (server) {
  const exited = once(server.child, 'exit')
  server.child.send({ type: 'close' })
  await exited
}
