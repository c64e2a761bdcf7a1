// `npm run bench` (full, a few minutes) or `npm run bench -- --quick` (every benchmark, briefly); `--only mcp`
// (names below) runs some of them.
// Prints the machine, one table per benchmark and a table of the goals, met or missed.
import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { createRequire } from 'node:module'
import { measureAudiences } from './audiences.js'
import { measureInvocation } from './invoke.js'
import { measureMcp } from './mcp.js'
import { LINE_BYTES, LINES, measureCancellation, measureStreams } from './streams.js'
import { measureThroughput } from './throughput.js'
import { fixed, formatTable, median, runScript, thousands, verdict } from './stats.js'

const quick = process.argv.includes('--quick')
const settings = quick
  ? { rounds: 2, duration: 1, profileDuration: 1, startupPairs: 2, appPairs: 2, memoryRounds: 1, importRounds: 3, sequences: 200, injections: 2000, fanoutRounds: 5, latencySamples: 200, subscriberCycles: 1000, cancelSamples: 30, abandonedCalls: 300 }
  : { rounds: 5, duration: 3, profileDuration: 2, startupPairs: 9, appPairs: 15, memoryRounds: 3, importRounds: 21, sequences: 1000, injections: 20000, fanoutRounds: 30, latencySamples: 2000, subscriberCycles: 10000, cancelSamples: 200, abandonedCalls: 1000 }
const THROUGHPUT_COMMANDS = [50, 1000]
const STARTUP_COMMANDS = [1000, 10000]
const APP_ROUTES = [20, 200]
const MEMORY_COMMANDS = 10000
const MCP_COMMANDS = [1, 501]
const MCP_ROWS = [
  ['modernCall', 'tools/call, 2026-07-28 (no session)'],
  ['sessionCall', 'tools/call, 2025-11-25 session'],
  ['legacyCall', 'tools/call, 2025-06-18 without a session'],
  ['modernList', 'tools/list, 2026-07-28'],
  ['bareSdkCall', 'the SDK alone: its handler, one trivial tool, no plugin']
]

const goals = []
/** Set by node24(), once. */
let node24Path
const begun = Date.now()
const benchmarks = {
  throughput: throughputBenchmark,
  invocation: invocationBenchmark,
  mcp: mcpBenchmark,
  streams: streamsBenchmark,
  audiences: audiencesBenchmark,
  realtime: realtimeBenchmark,
  startup: startupBenchmark,
  'app-start': appStartBenchmark,
  memory: memoryBenchmark,
  import: importBenchmark
}
// `--only <name>[,<name>…]`: those benchmarks alone (`npm run bench -- --only mcp`).
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? Object.keys(benchmarks) : process.argv[onlyAt + 1].split(',')
printMachine()
for (const name of only) await benchmarks[name]()
console.log(`\n### Goals\n\n${formatTable(['Goal', 'Target', 'Measured', 'Result'], goals)}`)
console.log(`\n${quick ? 'Quick' : 'Full'} run took ${Math.round((Date.now() - begun) / 1000)} s.`)

function printMachine () {
  const require = createRequire(import.meta.url)
  const fastifyVersion = require('fastify/package.json').version
  console.log(`${quick ? 'Quick' : 'Full'} run: ${cpus().length} cores, ${cpus()[0].model}, Node ${process.version}, Fastify ${fastifyVersion}`)
}

async function throughputBenchmark () {
  const rows = []
  const work = []
  for (const count of THROUGHPUT_COMMANDS) {
    for (const result of await measureThroughput(count, settings)) {
      const ratio = result.manifest / result.baseline
      const label = result.status === 200 ? `GET 200 (${thousands(result.bytes)} B body)` : 'GET 304 (If-None-Match)'
      const cpuRatio = result.manifestCpu / result.baselineCpu
      rows.push([label, count, thousands(result.manifest), thousands(result.baseline), fixed(ratio),
        `${fixed(result.manifestCpu, 1)} / ${fixed(result.baselineCpu, 1)}`, fixed(cpuRatio), verdict(cpuRatio <= 1.03)])
      goals.push([`manifest ${result.status}, ${count} commands: server CPU per request vs baseline`, '≤ 1.03', fixed(cpuRatio), verdict(cpuRatio <= 1.03)])
      work.push(perRequestRow(label, count, result.perRequest))
    }
  }
  console.log(`\n### Throughput (req/s, median of ${settings.rounds} alternating rounds of ${settings.duration} s)\n`)
  console.log(formatTable(['Response', 'Commands', 'Manifest req/s', 'Baseline req/s', 'req/s ratio', 'Server CPU µs/req (manifest / baseline)', 'CPU ratio', '≤ 1.03'], rows))
  console.log('\n### Work per request beneath the handler (profiled without inlining)\n')
  console.log(formatTable(['Response', 'Commands', 'Manifest handler-file functions', 'Handler-file bytes/req (manifest / baseline)', 'All bytes/req (manifest / baseline)', 'Serialising or hashing frames', 'Result'], work.map((row) => row.cells)))
  const extra = work.filter((row) => !row.met)
  goals.push(['no serialisation, hashing or extra allocation per request', 'none beyond baseline',
    extra.length === 0 ? 'none' : extra.map((row) => row.cells[0]).join('; '), verdict(extra.length === 0)])
}

/** Execute against the route itself, and a 5-step pipeline against the same 5 calls made directly (DESIGN §11). */
async function invocationBenchmark () {
  const result = await measureInvocation(settings)
  const cpu = median(result.cpuRatios)
  const sequence = median(result.sequenceRatios)
  const range = (values) => `${fixed(median(values))} [${fixed(Math.min(...values))}–${fixed(Math.max(...values))}]`
  console.log(`\n### Invocation (${settings.rounds} alternating triples of rounds (direct, execute, the ceiling): ${settings.duration} s of load, ${settings.sequences} sequences; ratios: median of the per-pair ratios [min–max])\n`)
  console.log(formatTable(['Comparison', 'Direct', 'Through the plugin', 'Ratio', 'Goal', 'Result'], [
    ['server CPU µs per request, execute vs GET of the route (10 connections)', fixed(result.directCpu, 1), fixed(result.executeCpu, 1), range(result.cpuRatios), '≥ 0.5', verdict(cpu >= 0.5)],
    ['req/s', thousands(result.direct), thousands(result.execute), range(result.rateRatios), '', ''],
    ['the ceiling: the same POST to a route answering the same envelope at once, server CPU µs per request', fixed(result.directCpu, 1), fixed(result.outerCpu, 1), range(result.ceilingRatios), '', ''],
    ['5-step pipeline vs 5 calls, µs per sequence (1 keep-alive connection)', fixed(result.directSequence, 0), fixed(result.pipelineSequence, 0), range(result.sequenceRatios), '≤ 1.25', verdict(sequence <= 1.25)]
  ]))
  console.log(`\nOne app.inject() of the same route inside the server (what a route called through the fallback pays): ${fixed(result.injectCpu, 1)} µs CPU per call.`)
  goals.push(['execute server CPU per request vs calling the route directly (direct / execute)', '≥ 0.5', fixed(cpu), verdict(cpu >= 0.5)])
  goals.push(['5-step pipeline time vs 5 direct calls, one keep-alive connection', '≤ 1.25×', `${fixed(sequence)}×`, verdict(sequence <= 1.25)])
}

/**
 * MCP against execute (DESIGN §11): server CPU per request of `tools/call` of the command (2026-07-28 without a
 * session, in a 2025-11-25 session, 2025-06-18 without one) against execute of the same command, same server,
 * rounds alternating; `tools/list` and the SDK alone with a trivial tool beside them.
 */
async function mcpBenchmark () {
  const rows = []
  for (const commands of MCP_COMMANDS) {
    const names = ['execute', 'modernCall', 'sessionCall', 'legacyCall', commands === MCP_COMMANDS[0] ? 'bareSdkCall' : 'modernList']
    const { cpu, ratios } = await measureMcp(commands, names, settings)
    for (const [name, label] of MCP_ROWS) {
      if (cpu[name] === undefined) continue
      const ratio = median(ratios[name])
      const goal = name.endsWith('Call') && name !== 'bareSdkCall' ? '≥ 0.7' : ''
      rows.push([label, commands, fixed(cpu.execute, 1), fixed(cpu[name], 1), rangeOf(ratios[name]), goal, goal === '' ? '' : verdict(ratio >= 0.7)])
      if (goal !== '') goals.push([`MCP ${label}, ${commands} command${commands === 1 ? '' : 's'}: server CPU per call vs execute (execute / MCP)`, goal, fixed(ratio), verdict(ratio >= 0.7)])
    }
  }
  console.log(`\n### MCP (${settings.rounds} alternating rounds of ${settings.duration} s, 10 connections; ratio: execute's server CPU per request over the MCP request's, median [min–max] of the rounds)\n`)
  console.log(formatTable(['Request', 'Commands', 'Execute µs/req', 'MCP µs/req', 'Execute / MCP', 'Goal', 'Result'], rows))
}

/**
 * Streams and cancellation (DESIGN §11): a streamed execute's relay against reading the route directly (server
 * CPU per piece, alternating rounds), write → read latency of a piece, abort → `request.svc.signal` latency by
 * each way a caller cancels, and the server's heap over abandoned calls of an endless stream.
 */
/** Audiences (DESIGN §11): the public manifest beside a prebuilt Buffer, and a credentialed one beside the verifier's own route. */
async function audiencesBenchmark () {
  const result = await measureAudiences(settings)
  const publicRatio = median(result.publicRatios)
  const extra = median(result.credentialExtra)
  const micros = (values) => `${fixed(median(values), 1)} [${fixed(Math.min(...values), 1)}–${fixed(Math.max(...values), 1)}]`
  console.log(`\n### Audiences (50 commands, ${result.hidden} hidden; ${settings.rounds} rounds of ${settings.duration} s each, alternating; median [min–max] of the rounds)\n`)
  console.log(formatTable(['Request', 'Server CPU µs/req', 'Against', 'Its µs/req', 'Ratio or difference', 'Goal', 'Result'], [
    ['manifest, public view (no credential)', fixed(result.cpu.public, 1), 'the same bytes from a prebuilt Buffer', fixed(result.cpu.buffer, 1), rangeOf(result.publicRatios), '≤ 1.03', verdict(publicRatio <= 1.03)],
    ['manifest with a credential (the admin view)', fixed(result.cpu.credentialed, 1), 'a route running the same verifier, then the same bytes', fixed(result.cpu.verified, 1), `+${micros(result.credentialExtra)} µs`, '≤ +20 µs', verdict(extra <= 20)]
  ]))
  goals.push(['manifest with hidden commands, public view: server CPU vs a prebuilt Buffer', '≤ 1.03', fixed(publicRatio), verdict(publicRatio <= 1.03)])
  goals.push(['manifest with a credential: server CPU over the verifier\'s own route', '≤ +20 µs', `+${fixed(extra, 1)} µs`, verdict(extra <= 20)])
}

async function streamsBenchmark () {
  const streams = await measureStreams(settings)
  const cpu = median(streams.cpuRatios)
  const p99 = streams.latency.streamed.p99
  const ms = (value) => `${fixed(value, 2)} ms`
  console.log(`\n### Streams (${settings.rounds} alternating pairs of rounds of ${settings.duration} s, 4 callers; ${thousands(LINES)} NDJSON lines of ${LINE_BYTES} B per call; ratios: median of the per-pair ratios [min–max])\n`)
  console.log(formatTable(['Comparison', 'Direct', 'Streamed execute', 'Ratio', 'Goal', 'Result'], [
    ['server CPU µs per piece (direct / streamed)', fixed(streams.directCpu, 2), fixed(streams.streamedCpu, 2), rangeOf(streams.cpuRatios), '≥ 0.8', verdict(cpu >= 0.8)],
    ['pieces/s', thousands(streams.directRate), thousands(streams.streamedRate), rangeOf(streams.rateRatios), '', ''],
    [`route's write → caller's read, p50 / p99 / max (${thousands(streams.latency.streamed.samples)} pieces each, 1 every 2 ms, alternating calls)`,
      `${ms(streams.latency.direct.p50)} / ${ms(streams.latency.direct.p99)} / ${ms(streams.latency.direct.max)}`,
      `${ms(streams.latency.streamed.p50)} / ${ms(streams.latency.streamed.p99)} / ${ms(streams.latency.streamed.max)}`, '', 'p99 ≤ 2 ms', verdict(p99 <= 2)],
    ['of it in the server: route\'s write → write on the caller\'s response, p50 / p99 / max',
      `${ms(streams.inServer.direct.p50)} / ${ms(streams.inServer.direct.p99)} / ${ms(streams.inServer.direct.max)}`,
      `${ms(streams.inServer.streamed.p50)} / ${ms(streams.inServer.streamed.p99)} / ${ms(streams.inServer.streamed.max)}`, '', '', '']
  ]))
  console.log(`\nThe design's own work per piece, timed in the server without I/O (JSON.parse of the line, JSON.stringify of its chunk frame): ${fixed(streams.floor, 2)} µs CPU; at the direct read's cost, a relay that did only that more would reach ${fixed(streams.directCpu / (streams.directCpu + streams.floor))}.`)
  console.log(`\nClocks: both processes read performance.timeOrigin + performance.now(); the server's offset, ${fixed(streams.clock.offset, 3)} ms, is taken out (± ${fixed(streams.clock.roundTrip / 2, 3)} ms, half the least IPC round trip).`)
  goals.push(['streamed execute: server CPU per piece vs reading the route directly (direct / streamed)', '≥ 0.8', fixed(cpu), verdict(cpu >= 0.8)])
  goals.push(['streamed execute: route\'s write → caller\'s read of a piece, p99', '≤ 2 ms', ms(p99), verdict(p99 <= 2)])

  const cancellation = await measureCancellation(settings)
  const ways = [
    ['execute', 'streamed execute: the caller closes its connection'],
    ['session', 'MCP tools/call in a 2025-11-25 session: notifications/cancelled'],
    ['modern', 'MCP tools/call, 2026-07-28: the client closes its request']
  ]
  console.log(`\n### Cancellation: the caller's abort → request.svc.signal aborting in the route (${cancellation.samples} calls each, interleaved)\n`)
  console.log(formatTable(['Caller', 'p50', 'p99', 'max', 'Goal', 'Result'], ways.map(([name, label]) => {
    const { p50, p99, max } = cancellation.latency[name]
    return [label, ms(p50), ms(p99), ms(max), 'p99 ≤ 50 ms', verdict(p99 <= 50)]
  })))
  for (const [name, label] of ways) {
    const { p99 } = cancellation.latency[name]
    goals.push([`cancellation, ${label}: abort → signal, p99`, '≤ 50 ms', ms(p99), verdict(p99 <= 50)])
  }
  const memoryRows = [
    ['execute', 'streamed execute, connection closed after the first piece'],
    ['session', 'MCP 2025-11-25 session, notifications/cancelled']
  ]
  console.log('\n### Cancellation: server heap after full collections, before and after abandoned calls of an endless stream\n')
  console.log(formatTable(['Abandoned calls', 'Calls', 'Heap before', 'Heap after', 'Growth', 'Goal', 'Result'], memoryRows.map(([name, label]) => {
    const { count, before, after, growth } = cancellation.memory[name]
    return [label, thousands(count), `${fixed(before / 2 ** 20, 2)} MiB`, `${fixed(after / 2 ** 20, 2)} MiB`, `${thousands(growth)} B`, '≤ 1 MB', verdict(growth <= 1e6)]
  })))
  for (const [name, label] of memoryRows) {
    const { count, growth } = cancellation.memory[name]
    goals.push([`heap after ${thousands(count)} abandoned calls of an endless stream (${label})`, '≤ 1 MB growth', `${thousands(growth)} B`, verdict(growth <= 1e6)])
  }
}

/** Met when no serialising or hashing function runs and the handler's own code allocates no more than the baseline's. */
function perRequestRow (label, count, { manifest, baseline }) {
  const frames = manifest.serialisingOrHashing
  const extraBytes = manifest.ownBytesPerRequest - baseline.ownBytesPerRequest
  const met = frames.length === 0 && extraBytes < 1
  return {
    met,
    cells: [label, count, manifest.ownFunctions.map((name) => name.split(' ')[0]).join(', '), `${fixed(manifest.ownBytesPerRequest, 1)} / ${fixed(baseline.ownBytesPerRequest, 1)}`,
      `${thousands(manifest.bytesPerRequest)} / ${thousands(baseline.bytesPerRequest)}`, frames.join(', ') || 'none', verdict(met)]
  }
}

/**
 * The plugin's own start-up work against @fastify/swagger's (DESIGN §11): fresh processes, plugin and swagger
 * alternating, each timing only the hooks its variant added, on Node 24's main-thread clock when available.
 */
/** One emit to 1,000 SSE subscribers vs raw writes; emit → receive through Redis; heap per subscriber and over cycles (DESIGN §11). */
async function realtimeBenchmark () {
  const fanout = await runScript('realtime.js', ['fanout', settings.fanoutRounds])
  const ratio = fanout.pluginRate / fanout.rawRate
  console.log(`\n### Events: one frame to ${thousands(fanout.subscribers)} SSE subscribers (median of ${fanout.rounds} alternating rounds, ${fanout.frameBytes} B frame)\n`)
  console.log(formatTable(['Path', 'Server ms per frame to all', 'Deliveries/s'], [
    ['app.svc.emit() to the events stream', fixed(fanout.pluginMs, 2), thousands(fanout.pluginRate)],
    ['res.write(frame) to raw responses', fixed(fanout.rawMs, 2), thousands(fanout.rawRate)]
  ]))
  goals.push([`emit to ${thousands(fanout.subscribers)} SSE subscribers: deliveries/s vs raw writes`, '≥ 0.8', fixed(ratio), verdict(ratio >= 0.8)])

  if (!hasRedisServer()) {
    console.log('\n### Events through Redis: not measured (redis-server is not installed)')
    goals.push(['emit → receive across two instances through Redis, p99', '≤ 10 ms', 'not measured', 'MISSED'])
  } else {
    const redis = await runScript('realtime.js', ['redis', settings.latencySamples])
    console.log(`\n### Events through Redis: emit on instance A → frame read on instance B (${thousands(redis.samples)} emits, one at a time)\n`)
    console.log(formatTable(['p50', 'p99', 'max'], [[`${fixed(redis.p50, 2)} ms`, `${fixed(redis.p99, 2)} ms`, `${fixed(redis.max, 2)} ms`]]))
    goals.push(['emit → receive across two instances through Redis, p99', '≤ 10 ms', `${fixed(redis.p99, 2)} ms`, verdict(redis.p99 <= 10)])
  }

  const memory = await runScript('realtime.js', ['memory', settings.subscriberCycles], ['--expose-gc'])
  console.log('\n### Events: memory (heap after a full GC; clients in the same process)\n')
  console.log(formatTable(['Measure', 'Value'], [
    [`heap per idle subscriber of the events stream (${thousands(memory.subscribers)} open)`, `${thousands(memory.perSubscriber)} B`],
    ['heap per raw response held open by a plain route', `${thousands(memory.perRawResponse)} B`],
    ['what the plugin adds per subscriber', `${thousands(memory.pluginPerSubscriber)} B`],
    [`heap growth over ${thousands(memory.cycles)} connect/disconnect cycles`, `${thousands(memory.growth)} B (${fixed(memory.growthPerCycle, 1)} B per cycle)`]
  ]))
  goals.push([`no heap growth over ${thousands(memory.cycles)} subscriber connect/disconnect cycles`, '≤ 64 B per cycle', `${fixed(memory.growthPerCycle, 1)} B`, verdict(memory.growthPerCycle <= 64)])
}

function hasRedisServer () {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function startupBenchmark () {
  const node = node24()
  const samples = new Map(STARTUP_COMMANDS.map((count) => [count, { plugin: [], swagger: [], floor: [] }]))
  let clock
  for (let pair = 0; pair < settings.startupPairs; pair++) {
    for (const count of STARTUP_COMMANDS) {
      const plugin = await runScript('own-work.js', ['plugin', count], [], node)
      const swagger = await runScript('own-work.js', ['swagger', count], [], node)
      samples.get(count).plugin.push(plugin)
      samples.get(count).swagger.push(swagger.ownMs)
      samples.get(count).floor.push(plugin.floorMs)
      clock = plugin.clock
    }
  }
  const rows = []
  for (const [count, { plugin, swagger, floor }] of samples) {
    const ratios = plugin.map((sample, index) => sample.ownMs / swagger[index])
    const floorRatios = plugin.map((sample, index) => sample.ownMs / floor[index])
    const part = (name) => fixed(median(plugin.map((sample) => sample.parts[name] ?? 0)), 1)
    rows.push([count, fixed(median(plugin.map((sample) => sample.ownMs)), 1), `${part('register')} / ${part('onRoute')} / ${part('onReady')}`,
      fixed(median(swagger), 1), rangeOf(ratios), fixed(median(floor), 1), rangeOf(floorRatios)])
    if (count === 10000) {
      goals.push(['start-up own work, 10,000 commands, vs @fastify/swagger', '≤ 0.35', fixed(median(ratios)), verdict(median(ratios) <= 0.35)])
      goals.push(['start-up own work, 10,000 commands, vs the floor', '≤ 5×', `${fixed(median(floorRatios), 1)}×`, verdict(median(floorRatios) <= 5)])
    }
  }
  const own = (count) => median(samples.get(count).plugin.map((sample) => sample.ownMs))
  const growth = own(10000) / own(1000)
  goals.push(['start-up own work growth, 1,000 → 10,000 commands', '≤ 11×', `${fixed(growth, 1)}×`, verdict(growth <= 11)])
  console.log(`\n### Start-up, own work (${clock === 'thread' ? 'main-thread' : 'process'} CPU ms, Node ${versionOf(node)}, medians of ${settings.startupPairs} pairs of fresh processes; ratios: median [min–max] of the per-pair ratios)\n`)
  console.log(formatTable(['Commands', 'Plugin', 'register / onRoute / onReady', 'Swagger (+ swagger())', 'Plugin / swagger', 'Floor', 'Plugin / floor'], rows))
}

/** Median and range of per-pair ratios, as `0.52 [0.41–0.66]`. */
function rangeOf (ratios) {
  return `${fixed(median(ratios))} [${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))}]`
}

/**
 * Node 24 from the npm registry (its `process.threadCpuUsage()` times the main thread alone, and it is the
 * Node new apps start on), else this Node.
 */
function node24 () {
  try {
    node24Path ??= execFileSync('npx', ['-y', '-p', 'node@24', 'node', '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    node24Path = process.execPath
  }
  return node24Path
}

/** The version of the Node at `path`, as `v24.1.0`. */
function versionOf (path) {
  return execFileSync(path, ['-p', 'process.version'], { encoding: 'utf8' }).trim()
}

/** Whole-process CPU of a small app with real validation, with the plugin against without, paired. */
async function appStartBenchmark () {
  const node = node24()
  const rows = []
  for (const count of APP_ROUTES) {
    const plain = []
    const plugin = []
    for (let pair = 0; pair < settings.appPairs; pair++) {
      plain.push((await runScript('app-start.js', ['plain', count], [], node)).cpuMs)
      plugin.push((await runScript('app-start.js', ['plugin', count], [], node)).cpuMs)
    }
    const ratios = plugin.map((value, index) => value / plain[index])
    rows.push([count, fixed(median(plain), 0), fixed(median(plugin), 0), rangeOf(ratios)])
    goals.push([`whole start of a ${count}-route app with real validation, plugin vs none`, '≤ 1.08×', `${fixed(median(ratios))}×`, verdict(median(ratios) <= 1.08)])
  }
  console.log(`\n### What a user feels (process CPU ms from start to ready(), imports included; Node ${versionOf(node)}; medians of ${settings.appPairs} pairs)\n`)
  console.log(formatTable(['Routes', 'Without plugin', 'With plugin', 'With / without'], rows))
}

async function memoryBenchmark () {
  const samples = { plain: [], plugin: [], 'plugin-read': [] }
  for (let round = 0; round < settings.memoryRounds; round++) {
    for (const variant of Object.keys(samples)) samples[variant].push(await runScript('memory.js', [variant, MEMORY_COMMANDS], ['--expose-gc']))
  }
  const of = (variant, field) => median(samples[variant].map((sample) => sample[field]))
  const rows = ['plugin', 'plugin-read'].map((variant) => {
    const heap = of(variant, 'heapUsed') - of('plain', 'heapUsed')
    const buffers = of(variant, 'arrayBuffers') - of('plain', 'arrayBuffers')
    return [variant === 'plugin' ? 'served only' : 'after reading app.svc.manifest', MEMORY_COMMANDS, `${fixed(heap / 2 ** 20, 1)} MiB`,
      `${fixed(buffers / 2 ** 20, 1)} MiB`, `${thousands((heap + buffers) / MEMORY_COMMANDS)} B`]
  })
  console.log(`\n### Memory retained after ready() (median of ${settings.memoryRounds} fresh processes)\n`)
  console.log(formatTable(['Variant', 'Commands', 'Heap retained', 'Array buffers (served body)', 'Total per command'], rows))
}

/**
 * CPU that importing each entry adds to an app that has already imported Fastify, in fresh processes, on this
 * Node and on Node 24 (whose builtins cost differently to import as ES modules).
 */
async function importBenchmark () {
  const nodes = [...new Set([process.execPath, node24()])]
  const entries = ['plugin', 'client']
  const samples = new Map(entries.flatMap((entry) => nodes.map((node) => [`${entry} ${node}`, []])))
  for (let round = 0; round < settings.importRounds; round++) {
    for (const entry of entries) {
      for (const node of nodes) samples.get(`${entry} ${node}`).push((await runScript('import.js', [entry], [], node)).cpuMs)
    }
  }
  console.log(`\n### Import (CPU ms added by importing the entry after Fastify, median / min of ${settings.importRounds} fresh processes)\n`)
  console.log(formatTable(['Entry', ...nodes.map((node) => `Node ${versionOf(node)}`)], entries.map((entry) => [
    entry === 'plugin' ? 'fastify-svc-manifest' : 'fastify-svc-manifest/client',
    ...nodes.map((node) => {
      const values = samples.get(`${entry} ${node}`)
      return `${fixed(median(values), 1)} / ${fixed(Math.min(...values), 1)}`
    })
  ])))
}
