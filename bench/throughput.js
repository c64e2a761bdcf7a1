// Requests per second of the manifest route beside the baseline route, in the same server: rounds
// alternate manifest and baseline (A B A B …) and the ratio is taken from the medians of one run.
// Then the per-request work of both handlers, profiled in a second server started without TurboFan
// inlining, so that every allocation is charged to the function that made it.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import autocannon from 'autocannon'
import { BASELINE_PATH, MANIFEST_PATH } from './routes.js'
import { median, waitForBuild } from './stats.js'

const CONNECTIONS = 10

export async function measureThroughput (count, { rounds, duration, profileDuration }) {
  const results = await measureRates(count, rounds, duration)
  const server = await startServer(count, ['--no-turbo-inlining'])
  try {
    for (const [index, pair] of targetPairs(server).entries()) {
      results[index].perRequest = {
        manifest: await profileTarget(server, pair.manifest, 'manifest', profileDuration),
        baseline: await profileTarget(server, pair.baseline, 'baseline', profileDuration)
      }
    }
    return results
  } finally {
    await stopServer(server)
  }
}

/** The 200 and the 304 pair, each a manifest target and its baseline target. */
function targetPairs (server) {
  const base = `http://127.0.0.1:${server.port}`
  const conditional = { 'if-none-match': server.etag }
  return [
    { status: 200, manifest: { url: base + MANIFEST_PATH }, baseline: { url: base + BASELINE_PATH } },
    { status: 304, manifest: { url: base + MANIFEST_PATH, headers: conditional }, baseline: { url: base + BASELINE_PATH, headers: conditional } }
  ]
}

async function measureRates (count, rounds, duration) {
  const server = await startServer(count)
  try {
    const results = []
    for (const pair of targetPairs(server)) {
      await assertStatus(pair.manifest, pair.status)
      await assertStatus(pair.baseline, pair.status)
      await load(pair.manifest, 1)
      await load(pair.baseline, 1)
      const manifest = { rates: [], cpu: [] }
      const baseline = { rates: [], cpu: [] }
      for (let round = 0; round < rounds; round++) {
        await measureRound(server, pair.manifest, duration, manifest)
        await measureRound(server, pair.baseline, duration, baseline)
      }
      results.push({
        count,
        status: pair.status,
        bytes: server.bytes,
        manifest: median(manifest.rates),
        baseline: median(baseline.rates),
        manifestCpu: median(manifest.cpu),
        baselineCpu: median(baseline.cpu)
      })
    }
    return results
  } finally {
    await stopServer(server)
  }
}

/** One round: req/s seen by autocannon, and the server's CPU microseconds per request (less disturbed by a busy machine). */
async function measureRound (server, target, duration, into) {
  const before = await serverCpu(server)
  const result = await load(target, duration)
  const after = await serverCpu(server)
  into.rates.push(result.requests.average)
  into.cpu.push((after - before) / result.requests.total)
}

async function serverCpu (server) {
  const answered = once(server.child, 'message')
  server.child.send({ type: 'cpu' })
  const [{ micros }] = await answered
  return micros
}

async function startServer (count, execArgv = []) {
  await waitForBuild()
  const child = fork(new URL('./server.js', import.meta.url), [String(count)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new Error(`benchmark server exited with code ${code}`) })
  ])
  return { child, ...message }
}

async function stopServer (server) {
  const exited = once(server.child, 'exit')
  server.child.send({ type: 'close' })
  await exited
}

async function assertStatus (target, status) {
  const response = await fetch(target.url, { headers: target.headers })
  if (response.status !== status) throw new Error(`${target.url} answered ${response.status}, expected ${status}`)
  await response.arrayBuffer()
}

async function load (target, duration) {
  const result = await autocannon({ ...target, connections: CONNECTIONS, duration })
  if (result.errors > 0 || result.timeouts > 0) throw new Error(`${target.url}: ${result.errors} errors, ${result.timeouts} timeouts`)
  return result
}

/** Functions run and bytes allocated per request beneath the handler of `label`, under load. */
async function profileTarget (server, target, label, duration) {
  const started = once(server.child, 'message')
  server.child.send({ type: 'profile-start' })
  await started
  const result = await load(target, duration)
  const stopped = once(server.child, 'message')
  server.child.send({ type: 'profile-stop' })
  const [{ profile }] = await stopped
  const handler = profile[label]
  return {
    ownFunctions: handler.ownFunctions,
    serialisingOrHashing: handler.serialisingOrHashing,
    requests: result.requests.total,
    bytesPerRequest: handler.allocated / result.requests.total,
    ownBytesPerRequest: handler.ownAllocated / result.requests.total
  }
}
