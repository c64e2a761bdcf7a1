import { Readable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { httpClient, textJson } from '../helpers/mcp.js'
import { generatedStream } from '../helpers/generated.js'
import { listening } from '../helpers/net.js'

// Measured on 0.2: a 300 MiB streamed download took +2.3 GB through execute (+3 MB directly), two
// anonymous calls of a 200 MiB one crashed a 512 MB process, and an endless stream never answered. Here a
// real server, real sockets and the official MCP client: every call stops at invoke.maxResultBytes (8 MiB).

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const MiB = 1024 * 1024

/** What the route saw of its calls. */
const seen = { started: 0, closed: 0, destroyed: 0, produced: 0 }

/**
 * `size` bytes (Infinity: endless) in fresh 64 KiB chunks, made as they are read, as a file stream makes
 * them; `paced`, each a millisecond later (at most ~64 MiB/s: a caller that aborts after the first MiB does
 * so long before the 8 MiB budget could answer for it, however fast the machine).
 */
function download (size: number, paced: boolean): Readable {
  return generatedStream(size, {
    chunkBytes: 64 * 1024,
    fresh: true,
    pace: paced ? 'timer' : 'now',
    made: (length) => { seen.produced += length },
    destroyed: () => { seen.destroyed++ }
  })
}

async function server (t: Test) {
  const app = await readyApp(t, { mcp: true }, (app) => {
    app.get('/download', {
      svc: { name: 'download', description: 'A generated download', params: Type.Object({ mib: Type.Number(), paced: Type.Optional(Type.Boolean()) }) }
    }, async (request, reply) => {
      seen.started++
      request.raw.once('close', () => { seen.closed++ })
      const { mib, paced = false } = request.query as { mib: number, paced?: boolean }
      return await reply.type('application/octet-stream').send(download(mib === -1 ? Infinity : mib * MiB, paced))
    })
  }, { forceCloseConnections: true })
  return { app, origin: await listening(t, app) }
}

/** Heap and buffers in use, after a collection. */
function inUse (): number {
  gc()
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}

async function settle (check: () => boolean, ms = 5000): Promise<number> {
  const start = Date.now()
  while (!check() && Date.now() - start < ms) await new Promise((resolve) => setTimeout(resolve, 10))
  return Date.now() - start
}

function post (url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal })
}

function reset (): void {
  Object.assign(seen, { started: 0, closed: 0, destroyed: 0, produced: 0 })
}

const TOO_LARGE = { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'Command "download": its route\'s response passed 8388608 bytes (invoke.maxResultBytes), and was cut off there.' }

t.test('execute: a 300 MiB download and an endless one end at 8 MiB with 413; the route\'s stream is destroyed', async (t) => {
  const { origin } = await server(t)
  for (const mib of [300, -1]) {
    reset()
    const before = inUse()
    const start = Date.now()
    const response = await post(`${origin}/svc/execute`, { command: 'download', params: { mib } })
    const elapsed = Date.now() - start
    t.equal(response.status, 413)
    t.same(await response.json(), { ok: false, error: TOO_LARGE })
    await settle(() => seen.destroyed === 1 && seen.closed === 1)
    t.same([seen.destroyed, seen.closed], [1, 1], 'the stream is destroyed and the request closed')
    t.ok(seen.produced < 16 * MiB, `the route produced ${(seen.produced / MiB).toFixed(1)} MiB`)
    const grown = inUse() - before
    t.ok(grown < 64 * MiB, `${mib === -1 ? 'endless' : `${mib} MiB`}: 413 after ${elapsed} ms, memory grew by ${(grown / MiB).toFixed(1)} MiB`)
    t.ok(elapsed < 30_000)
  }
})

t.test('two concurrent calls of a 200 MiB download, while the process watches its peak', async (t) => {
  const { origin } = await server(t)
  reset()
  const before = inUse()
  let peak = 0
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed + process.memoryUsage().external) }, 5)
  const responses = await Promise.all([1, 2].map(async () => await post(`${origin}/svc/execute`, { command: 'download', params: { mib: 200, paced: true } })))
  clearInterval(sampler)
  t.same(responses.map((response) => response.status), [413, 413])
  await Promise.all(responses.map(async (response) => await response.body?.cancel()))
  await settle(() => seen.destroyed === 2)
  t.equal(seen.destroyed, 2)
  const grown = inUse() - before
  const peaked = peak - before
  t.ok(peaked < 128 * MiB, `peak above the start: ${(peaked / MiB).toFixed(1)} MiB`)
  t.ok(grown < 64 * MiB, `after: ${(grown / MiB).toFixed(1)} MiB`)
})

t.test('a pipeline step stops at the pipeline\'s budget; the steps after it never run', async (t) => {
  const { origin } = await server(t)
  reset()
  const before = inUse()
  const response = await post(`${origin}/svc/pipeline`, { steps: [{ command: 'download', params: { mib: 300 } }, { command: 'download', params: { mib: 1 } }] })
  t.equal(response.status, 200)
  const { ok, results } = await response.json() as { ok: boolean, results: Array<{ error: { code: string, message: string } }> }
  t.equal(ok, false)
  t.equal(results.length, 1)
  t.same(results[0].error, { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'steps[0] (download): the results of this pipeline would pass 8388608 bytes (invoke.maxResultBytes); the pipeline stops here.' })
  await settle(() => seen.destroyed === 1)
  t.same([seen.started, seen.destroyed, seen.closed], [1, 1, 1])
  const grown = inUse() - before
  t.ok(grown < 64 * MiB, `memory grew by ${(grown / MiB).toFixed(1)} MiB`)
})

t.test('MCP tools/call with the official client: a 300 MiB download is a 413 tool error', async (t) => {
  const { origin } = await server(t)
  const client = await httpClient(t, `${origin}/mcp`)
  reset()
  const before = inUse()
  const start = Date.now()
  const result = await client.callTool({ name: 'download', arguments: { mib: 300 } })
  const elapsed = Date.now() - start
  t.equal(result.isError, true)
  t.same(textJson(result), { code: TOO_LARGE.code, message: TOO_LARGE.message, status: 413 })
  await settle(() => seen.destroyed === 1)
  t.same([seen.destroyed, seen.closed], [1, 1])
  const grown = inUse() - before
  t.ok(grown < 64 * MiB, `413 after ${elapsed} ms, memory grew by ${(grown / MiB).toFixed(1)} MiB`)
})

t.test('a caller that aborts mid-stream: the route sees its request close, and its stream stops', async (t) => {
  const { origin } = await server(t)
  for (const [label, url, body] of [
    ['execute', `${origin}/svc/execute`, { command: 'download', params: { mib: -1, paced: true } }],
    ['pipeline', `${origin}/svc/pipeline`, { steps: [{ command: 'download', params: { mib: -1, paced: true } }] }]
  ] as const) {
    reset()
    const controller = new AbortController()
    const request = post(url, body, controller.signal).catch(() => undefined)
    await settle(() => seen.produced > MiB)
    controller.abort()
    await request
    const waited = await settle(() => seen.closed === 1 && seen.destroyed === 1)
    t.same([seen.closed, seen.destroyed], [1, 1], `${label}: close seen ${waited} ms after the abort`)
    t.ok(waited < 1500)
    const produced = seen.produced
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(seen.produced, produced, `${label}: nothing is read after it`)
  }
  reset()
  const client = await httpClient(t, `${origin}/mcp`)
  const controller = new AbortController()
  const call = client.callTool({ name: 'download', arguments: { mib: -1, paced: true } }, { signal: controller.signal }).catch((error: Error) => error)
  await settle(() => seen.produced > MiB)
  controller.abort()
  t.type(await call, Error, 'the client gives up')
  const waited = await settle(() => seen.closed === 1 && seen.destroyed === 1)
  t.same([seen.closed, seen.destroyed], [1, 1], `MCP: close seen ${waited} ms after the abort`)
})
