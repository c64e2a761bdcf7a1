// Where the server's CPU goes for one kind of MCP request (or execute): the bench server of bench/mcp.js,
// loaded with that request alone and profiled by V8's CPU profiler (what `node --cpu-prof` writes) during the
// load only, its profile summed by function (self time) and by where the code comes from. `node bench/mcp-profile.js <target> <commands> [seconds]`, target one of
// execute, modernCall, sessionCall, modernList; prints a JSON summary as its last line.
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load, openSession, startServer, stopServer, TARGETS } from './mcp.js'

const [name = 'modernCall', commands = '1', seconds = '5'] = process.argv.slice(2)
const directory = await mkdtemp(join(tmpdir(), 'svc-mcp-profile-'))
try {
  const server = await startServer(Number(commands))
  const file = join(directory, 'load.cpuprofile')
  let requests
  try {
    const base = `http://127.0.0.1:${server.port}`
    const target = TARGETS[name]({ base, session: await openSession(base) })
    await load(target, 2)
    await ask(server, { type: 'profile-start' })
    requests = (await load(target, Number(seconds))).requests.total
    await ask(server, { type: 'profile-stop', path: file })
  } finally {
    await stopServer(server)
  }
  const summary = summarise(JSON.parse(await readFile(file, 'utf8')), requests)
  for (const { frame, share, micros } of summary.frames) console.error(`${share.padStart(6)}  ${micros.padStart(6)} µs/req  ${frame}`)
  console.error('')
  for (const { origin, share, micros } of summary.origins) console.error(`${share.padStart(6)}  ${micros.padStart(6)} µs/req  ${origin}`)
  console.log(JSON.stringify(summary))
} finally {
  await rm(directory, { recursive: true, force: true })
}

async function ask (server, message) {
  const answered = once(server.child, 'message')
  server.child.send(message)
  await answered
}

/** Self time by function (top 25) and by origin, each as a share of the busy time and as µs per request. */
function summarise (profile, requests) {
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
    [key]: label, share: `${(100 * time / busy).toFixed(1)}%`, micros: (time / requests).toFixed(1)
  }))
  return { target: name, commands: Number(commands), requests, busyMicrosPerRequest: busy / requests, frames: rows(byFrame, 'frame', 25), origins: rows(byOrigin, 'origin', 12) }
}

function originOf (functionName, file) {
  if (file.startsWith('@modelcontextprotocol/')) return 'MCP SDK'
  if (file.startsWith('zod/')) return 'zod (the SDK\'s validation)'
  if (file.startsWith('dist/')) return 'the plugin'
  if (file.startsWith('node:') || file === '') return functionName === '(garbage collector)' ? 'garbage collection' : 'Node (HTTP, streams, web Request/Response, native)'
  return file.split('/')[0].startsWith('@') ? file.split('/').slice(0, 2).join('/') : file.split('/')[0]
}
