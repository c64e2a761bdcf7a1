// `npm run bench` (full, a few minutes) or `npm run bench -- --quick` (every benchmark, briefly).
// Prints the machine, one table per benchmark and a table of the goals, met or missed.
import { cpus } from 'node:os'
import { createRequire } from 'node:module'
import { measureThroughput } from './throughput.js'
import { fixed, formatTable, median, runScript, thousands, verdict } from './stats.js'

const quick = process.argv.includes('--quick')
const settings = quick
  ? { rounds: 2, duration: 1, profileDuration: 1, startupRounds: 2, memoryRounds: 1, importRounds: 3 }
  : { rounds: 5, duration: 3, profileDuration: 2, startupRounds: 9, memoryRounds: 3, importRounds: 21 }
const THROUGHPUT_COMMANDS = [50, 1000]
const STARTUP_COMMANDS = [1000, 10000]
/**
 * Fresh processes per round for each size. At 1,000 commands the overhead is a few tens of ms, the
 * difference of two minima that each move by about as much from run to run; those processes are cheap,
 * so that size takes three times as many samples.
 */
const STARTUP_SAMPLES_PER_ROUND = { 1000: 3, 10000: 1 }
const MEMORY_COMMANDS = 10000

const goals = []
const begun = Date.now()
printMachine()
await throughputBenchmark()
await startupBenchmark()
await memoryBenchmark()
await importBenchmark()
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
      rows.push([label, count, thousands(result.manifest), thousands(result.baseline), fixed(ratio), verdict(ratio >= 0.97),
        `${fixed(result.manifestCpu, 1)} / ${fixed(result.baselineCpu, 1)}`, fixed(result.baselineCpu / result.manifestCpu)])
      goals.push([`manifest ${result.status}, ${count} commands: req/s vs baseline`, '≥ 0.97', fixed(ratio), verdict(ratio >= 0.97)])
      work.push(perRequestRow(label, count, result.perRequest))
    }
  }
  console.log(`\n### Throughput (req/s, median of ${settings.rounds} alternating rounds of ${settings.duration} s)\n`)
  console.log(formatTable(['Response', 'Commands', 'Manifest', 'Baseline', 'Ratio', '≥ 0.97', 'Server CPU µs/req (manifest / baseline)', 'CPU ratio'], rows))
  console.log('\n### Work per request beneath the handler (profiled without inlining)\n')
  console.log(formatTable(['Response', 'Commands', 'Manifest handler-file functions', 'Handler-file bytes/req (manifest / baseline)', 'All bytes/req (manifest / baseline)', 'Serialising or hashing frames', 'Result'], work.map((row) => row.cells)))
  const extra = work.filter((row) => !row.met)
  goals.push(['no serialisation, hashing or extra allocation per request', 'none beyond baseline',
    extra.length === 0 ? 'none' : extra.map((row) => row.cells[0]).join('; '), verdict(extra.length === 0)])
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

async function startupBenchmark () {
  const samples = new Map(STARTUP_COMMANDS.map((count) => [count, { plain: [], plugin: [], swagger: [] }]))
  for (let round = 0; round < settings.startupRounds; round++) {
    for (const count of STARTUP_COMMANDS) {
      for (let sample = 0; sample < STARTUP_SAMPLES_PER_ROUND[count]; sample++) {
        for (const variant of ['plain', 'plugin', 'swagger']) {
          samples.get(count)[variant].push((await runScript('startup.js', [variant, count])).cpuMs)
        }
      }
    }
  }
  const rows = []
  const overheads = new Map()
  for (const [count, { plain, plugin, swagger }] of samples) {
    // Best of the fresh processes: Fastify's own start-up flips between a fast and a slow mode from one
    // process to the next (see docs/benchmarks.md), which would swamp a difference of medians.
    const pluginOverhead = Math.min(...plugin) - Math.min(...plain)
    const swaggerOverhead = Math.min(...swagger) - Math.min(...plain)
    overheads.set(count, pluginOverhead)
    const ratio = pluginOverhead / swaggerOverhead
    rows.push([count, bestAndMedian(plain), bestAndMedian(plugin), fixed(pluginOverhead, 0), bestAndMedian(swagger), fixed(swaggerOverhead, 0), fixed(ratio)])
    if (count === 10000) goals.push(['start-up overhead, 10,000 commands, vs @fastify/swagger', '≤ 0.25', fixed(ratio), verdict(ratio <= 0.25)])
  }
  const growth = overheads.get(10000) / overheads.get(1000)
  goals.push(['start-up overhead growth, 1,000 → 10,000 commands', '≤ 11×', `${fixed(growth, 1)}×`, verdict(growth <= 11)])
  const processes = STARTUP_COMMANDS.map((count) => `${settings.startupRounds * STARTUP_SAMPLES_PER_ROUND[count]} at ${thousands(count)}`).join(', ')
  console.log(`\n### Start-up (CPU ms from registering to ready(), best / median of fresh processes: ${processes})\n`)
  console.log(formatTable(['Commands', 'Plain Fastify', 'With plugin', 'Plugin overhead', 'With swagger + swagger()', 'Swagger overhead', 'Plugin / swagger'], rows))
}

function bestAndMedian (samples) {
  return `${fixed(Math.min(...samples), 0)} / ${fixed(median(samples), 0)}`
}

async function memoryBenchmark () {
  const plain = []
  const plugin = []
  for (let round = 0; round < settings.memoryRounds; round++) {
    plain.push(await runScript('memory.js', ['plain', MEMORY_COMMANDS], ['--expose-gc']))
    plugin.push(await runScript('memory.js', ['plugin', MEMORY_COMMANDS], ['--expose-gc']))
  }
  const heap = median(plugin.map((sample) => sample.heapUsed)) - median(plain.map((sample) => sample.heapUsed))
  const buffers = median(plugin.map((sample) => sample.arrayBuffers)) - median(plain.map((sample) => sample.arrayBuffers))
  console.log(`\n### Memory retained after ready() (median of ${settings.memoryRounds} fresh processes)\n`)
  console.log(formatTable(['Commands', 'Heap retained', 'Array buffers (served body)', 'Total per command'], [
    [MEMORY_COMMANDS, `${fixed(heap / 2 ** 20, 1)} MiB`, `${fixed(buffers / 2 ** 20, 1)} MiB`, `${thousands((heap + buffers) / MEMORY_COMMANDS)} B`]
  ]))
}

/** CPU that importing each entry adds to an app that has already imported Fastify, in fresh processes. */
async function importBenchmark () {
  const samples = { plugin: [], client: [] }
  for (let round = 0; round < settings.importRounds; round++) {
    for (const entry of Object.keys(samples)) samples[entry].push((await runScript('import.js', [entry])).cpuMs)
  }
  console.log(`\n### Import (CPU ms added by importing the entry after Fastify, median / min of ${settings.importRounds} fresh processes)\n`)
  console.log(formatTable(['Entry', 'Median', 'Min'], Object.entries(samples).map(([entry, values]) => [
    entry === 'plugin' ? 'fastify-svc-manifest' : 'fastify-svc-manifest/client', fixed(median(values), 1), fixed(Math.min(...values), 1)
  ])))
}
