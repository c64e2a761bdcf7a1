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
  console.error('\nTotal time (self and beneath) of the plugin\'s and the route\'s functions:')
  for (const { frame, share, micros } of summary.inclusive) console.error(`${share.padStart(6)}  ${micros.padStart(6)} µs/piece  ${frame}`)
  console.log(JSON.stringify(summary))
} finally {
  await rm(directory, { recursive: true, force: true })
}

/**
 * Self time by function (top 30) and by origin, each as a share of the busy time and as µs per piece; and the
 * total time (self and beneath, once per stack) of the plugin's and the route's own functions.
 */
function summarise (profile, pieces) {
  const self = new Map()
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)))
  const byFrame = new Map()
  const byOrigin = new Map()
  const parents = new Map()
  const labels = new Map()
  let busy = 0
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parents.set(child, node.id)
    const { functionName, url, lineNumber } = node.callFrame
    const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|bench)\//, '$1/')
    const frame = `${functionName || '(anonymous)'} ${file}${file === '' ? '' : `:${lineNumber + 1}`}`
    labels.set(node.id, { frame, own: file.startsWith('dist/') || file.startsWith('bench/') })
    const time = self.get(node.id) ?? 0
    if (functionName === '(idle)' || functionName === '(program)' || time === 0) continue
    busy += time
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + time)
    byOrigin.set(originOf(functionName, file), (byOrigin.get(originOf(functionName, file)) ?? 0) + time)
  }
  const inclusive = new Map()
  for (const [id, time] of self) {
    if (labels.get(id).frame.startsWith('(idle)') || labels.get(id).frame.startsWith('(program)')) continue
    const seen = new Set()
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const { frame, own } = labels.get(at)
      if (!own || seen.has(frame)) continue
      seen.add(frame)
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + time)
    }
  }
  const rows = (map, key, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([label, time]) => ({
    [key]: label, share: `${(100 * time / busy).toFixed(1)}%`, micros: (time / pieces).toFixed(3)
  }))
  return { side, pieces, busyMicrosPerPiece: busy / pieces, frames: rows(byFrame, 'frame', 30), origins: rows(byOrigin, 'origin', 12), inclusive: rows(inclusive, 'frame', 20) }
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
