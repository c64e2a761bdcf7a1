// Where the server's CPU goes when it relays a stream: the bench server of bench/streams.js, loaded with one
// side of the relay-rate measure alone (`direct`: GET of the route; `streamed`: a streamed execute of it) and
// profiled by V8's CPU profiler during the load only, its profile summed by function (self time) and by where
// the code comes from, per piece. `node bench/streams-profile.js <direct|streamed> [seconds]`; prints a JSON
// summary as its last line.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { executeTarget, LINES, loadRound, startServer, stopServer } from './streams.js'

const [side = 'streamed', seconds = '5'] = process.argv.slice(2)
const target = side === 'direct' ? { method: 'GET', path: `/lines?count=${LINES}` } : executeTarget('lines', { count: LINES })
const directory = await mkdtemp(join(tmpdir(), 'svc-streams-profile-'))
try {
  const server = await startServer()
  const file = join(directory, 'load.cpuprofile')
  let pieces
  try {
    await loadRound(server, target, 2)
    await server.ask('profile-start')
    const round = await loadRound(server, target, Number(seconds))
    pieces = Math.round(round.rate * Number(seconds))
    await server.ask('profile-stop', { path: file })
  } finally {
    await stopServer(server)
  }
  const summary = summarise(JSON.parse(await readFile(file, 'utf8')), pieces)
  for (const { frame, share, micros } of summary.frames) console.error(`${share.padStart(6)}  ${micros.padStart(6)} µs/piece  ${frame}`)
  console.error('')
  for (const { origin, share, micros } of summary.origins) console.error(`${share.padStart(6)}  ${micros.padStart(6)} µs/piece  ${origin}`)
  console.log(JSON.stringify(summary))
} finally {
  await rm(directory, { recursive: true, force: true })
}

/** Self time by function (top 30) and by origin, each as a share of the busy time and as µs per piece. */
function summarise (profile, pieces) {
  const self = new Map()
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)))
  const byFrame = new Map()
  const byOrigin = new Map()
  let busy = 0
  for (const node of profile.nodes) {
    const time = self.get(node.id) ?? 0
    const { functionName, url, lineNumber } = node.callFrame
    if (functionName === '(idle)' || functionName === '(program)' || time === 0) continue
    busy += time
    const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|bench)\//, '$1/')
    const frame = `${functionName || '(anonymous)'} ${file}${file === '' ? '' : `:${lineNumber + 1}`}`
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + time)
    byOrigin.set(originOf(functionName, file), (byOrigin.get(originOf(functionName, file)) ?? 0) + time)
  }
  const rows = (map, key, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([label, time]) => ({
    [key]: label, share: `${(100 * time / busy).toFixed(1)}%`, micros: (time / pieces).toFixed(3)
  }))
  return { side, pieces, busyMicrosPerPiece: busy / pieces, frames: rows(byFrame, 'frame', 30), origins: rows(byOrigin, 'origin', 12) }
}

function originOf (functionName, file) {
  if (file.startsWith('dist/')) return 'the plugin'
  if (file.startsWith('bench/')) return 'the route (bench)'
  if (file.startsWith('node:') || file === '') {
    if (functionName === '(garbage collector)') return 'garbage collection'
    if (functionName === 'parse' || functionName === 'stringify') return 'JSON.parse / JSON.stringify'
    return 'Node (HTTP, streams, sockets, native)'
  }
  return file.split('/')[0].startsWith('@') ? file.split('/').slice(0, 2).join('/') : file.split('/')[0]
}
