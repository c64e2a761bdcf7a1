// Invocation: `POST /svc/execute` against calling the same route directly, in the same server, rounds
// alternating (A B A B …); then a pipeline of 5 steps against the same 5 calls made directly, one after
// another over one keep-alive connection. Ratios are taken from the medians of one run.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import autocannon from 'autocannon'
import { median, waitForBuild } from './stats.js'

const CONNECTIONS = 10
const STEPS = 5

const DIRECT_PATH = '/shelves/kitchen/products?q=te&limit=3'
const EXECUTE_BODY = JSON.stringify({ command: 'products.find', params: { shelf: 'kitchen', q: 'te', limit: 3 } })
/** Five calls of the command; from the second on, each takes its shelf from the step before (a reference). */
const PIPELINE_BODY = JSON.stringify({
  steps: Array.from({ length: STEPS }, (_, index) => ({
    command: 'products.find',
    params: { shelf: index === 0 ? 'kitchen' : '$prev[0].sku', q: 'te', limit: 3 }
  }))
})
const DIRECT_PATHS = Array.from({ length: STEPS }, (_, index) => `/shelves/${index === 0 ? 'kitchen' : 'kettle'}/products?q=te&limit=3`)

export async function measureInvocation ({ rounds, duration, sequences, injections }) {
  const server = await startServer()
  try {
    const base = `http://127.0.0.1:${server.port}`
    const direct = { url: base + DIRECT_PATH }
    const execute = { url: `${base}/svc/execute`, method: 'POST', headers: { 'content-type': 'application/json' }, body: EXECUTE_BODY }
    const outer = { ...execute, url: `${base}/bench/outer` }
    await assertSameResult(server.port)
    await load(direct, 1)
    await load(execute, 1)
    await load(outer, 1)
    const rates = { direct: { rates: [], cpu: [] }, execute: { rates: [], cpu: [] }, outer: { rates: [], cpu: [] } }
    for (let round = 0; round < rounds; round++) {
      await measureRound(server, direct, duration, rates.direct)
      await measureRound(server, execute, duration, rates.execute)
      await measureRound(server, outer, duration, rates.outer)
    }
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const times = { direct: [], pipeline: [] }
    try {
      await timeSequences(() => directCalls(agent, server.port), sequences)
      await timeSequences(() => pipelineCall(agent, server.port), sequences)
      for (let round = 0; round < rounds; round++) {
        times.direct.push(await timeSequences(() => directCalls(agent, server.port), sequences))
        times.pipeline.push(await timeSequences(() => pipelineCall(agent, server.port), sequences))
      }
    } finally {
      agent.destroy()
    }
    const pairs = (a, b, ratio) => a.map((value, index) => ratio(value, b[index]))
    return {
      injectCpu: await injectCpu(server, injections),
      // Per-pair ratios (round i of one side against round i of the other): what a shared machine's drift
      // from round to round disturbs least.
      cpuRatios: pairs(rates.direct.cpu, rates.execute.cpu, (direct, execute) => direct / execute),
      ceilingRatios: pairs(rates.direct.cpu, rates.outer.cpu, (direct, outer) => direct / outer),
      rateRatios: pairs(rates.direct.rates, rates.execute.rates, (direct, execute) => execute / direct),
      sequenceRatios: pairs(times.direct, times.pipeline, (direct, pipeline) => pipeline / direct),
      direct: median(rates.direct.rates),
      execute: median(rates.execute.rates),
      directCpu: median(rates.direct.cpu),
      executeCpu: median(rates.execute.cpu),
      outerCpu: median(rates.outer.cpu),
      directSequence: median(times.direct),
      pipelineSequence: median(times.pipeline)
    }
  } finally {
    await stopServer(server)
  }
}

/** Microseconds per sequence: `count` sequences, one after another. */
async function timeSequences (sequence, count) {
  const started = process.hrtime.bigint()
  for (let index = 0; index < count; index++) await sequence()
  return Number(process.hrtime.bigint() - started) / 1000 / count
}

async function directCalls (agent, port) {
  for (const path of DIRECT_PATHS) await send(agent, port, 'GET', path)
}

async function pipelineCall (agent, port) {
  const { ok, results } = JSON.parse(await send(agent, port, 'POST', '/svc/pipeline', PIPELINE_BODY))
  if (!ok || results.length !== STEPS) throw new Error(`the pipeline failed: ${JSON.stringify(results)}`)
}

function send (agent, port, method, path, body) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
    const outgoing = request({ agent, host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => { text += chunk })
      response.on('end', () => response.statusCode === 200 ? resolve(text) : reject(new Error(`${method} ${path} answered ${response.statusCode}: ${text}`)))
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** Execute must answer what the route answers, or the comparison means nothing. */
async function assertSameResult (port) {
  const agent = new Agent()
  try {
    const direct = JSON.parse(await send(agent, port, 'GET', DIRECT_PATH))
    const executed = await send(agent, port, 'POST', '/svc/execute', EXECUTE_BODY)
    if (executed !== JSON.stringify({ ok: true, result: direct })) {
      throw new Error(`execute answered ${executed} where the route answered ${JSON.stringify(direct)}`)
    }
    const outer = await send(agent, port, 'POST', '/bench/outer', EXECUTE_BODY)
    if (outer !== executed) throw new Error(`the ceiling's route answered ${outer} where execute answered ${executed}`)
  } finally {
    agent.destroy()
  }
}

async function measureRound (server, target, duration, into) {
  const before = await serverCpu(server)
  const result = await load(target, duration)
  const after = await serverCpu(server)
  into.rates.push(result.requests.average)
  into.cpu.push((after - before) / result.requests.total)
}

async function load (target, duration) {
  const result = await autocannon({ ...target, connections: CONNECTIONS, duration })
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`${target.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`)
  }
  return result
}

/** What one `app.inject()` of the route costs inside the server: what a call through the fallback pays on top. */
async function injectCpu (server, count) {
  const answered = once(server.child, 'message')
  server.child.send({ type: 'inject', url: DIRECT_PATH, count })
  const [{ micros }] = await answered
  return micros
}

async function serverCpu (server) {
  const answered = once(server.child, 'message')
  server.child.send({ type: 'cpu' })
  const [{ micros }] = await answered
  return micros
}

async function startServer () {
  await waitForBuild()
  const child = fork(new URL('./invoke-server.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new Error(`invocation benchmark server exited with code ${code}`) })
  ])
  return { child, ...message }
}

async function stopServer (server) {
  const exited = once(server.child, 'exit')
  server.child.send({ type: 'close' })
  await exited
}
