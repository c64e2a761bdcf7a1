import { once } from 'node:events'
import { Readable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'
import { httpClient, textJson } from '../helpers/mcp.js'
import { generatedStream } from '../helpers/generated.js'
import { listening } from '../helpers/net.js'

// Every call holds at most `invoke.maxResultBytes` of one route's body, counted as it arrives, on both
// dispatch paths (the router's in-memory request, and app.inject() for `svcDispatch: 'inject'`); past it
// the route's stream is destroyed, its request closes, and the call is 413. A caller that goes away
// closes the inner request the same way.

const LIMIT = 64 * 1024

/** What the route saw of its own call. */
interface Seen {
  started: number
  /** `request.raw` emitted `close`. */
  closed: number
  /** The stream the route sent was destroyed. */
  destroyed: number
  /** Bytes the stream produced. */
  produced: number
  /** `request.raw.socket` emitted `close` (checked on the in-memory path, whose socket is the plugin's). */
  socketClosed: number
}

/**
 * A stream of `size` bytes (Infinity: endless), made as it is read; `paced`: each chunk a turn of the
 * event loop later, as from a file or a socket (else the whole stream may flow in one synchronous run).
 */
function generated (size: number, seen: Seen, paced = false): Readable {
  return generatedStream(size, {
    chunkBytes: 16 * 1024,
    pace: paced ? 'immediate' : 'now',
    made: (length, total) => { seen.produced = total },
    destroyed: () => { seen.destroyed++ }
  })
}

function freshSeen (): Seen {
  return { started: 0, closed: 0, destroyed: 0, produced: 0, socketClosed: 0 }
}

/**
 * Each route twice: `name` through the router, `name.inject` through app.inject(). `download` sends a
 * stream of `size` bytes, `text` a string of `size` characters, `hang` never answers.
 */
async function budgetApp (t: Test, options: Parameters<typeof readyApp>[1] = { invoke: { maxResultBytes: LIMIT } }) {
  // Closing drops the connections that the tests' callers left behind at once.
  const serverOptions = { forceCloseConnections: true }
  const seen = new Map<string, Seen>()
  const track = (name: string, request: FastifyRequest): Seen => {
    const record = freshSeen()
    seen.set(name, record)
    record.started++
    request.raw.once('close', () => { record.closed++ })
    request.raw.socket.once('close', () => { record.socketClosed++ })
    return record
  }
  const started: Array<(name: string) => void> = []
  const app = await readyApp(t, options, (app) => {
    const size = Type.Object({ size: Type.Number(), paced: Type.Optional(Type.Boolean()) })
    for (const inject of [false, true]) {
      const suffix = inject ? '.inject' : ''
      const config = inject ? { svcDispatch: 'inject' as const } : undefined
      app.get(`/download${suffix}`, { config, svc: { name: `download${suffix}`, description: 'A generated download', params: size } }, async (request, reply) => {
        const record = track(`download${suffix}`, request)
        for (const listener of started) listener(`download${suffix}`)
        const { size, paced } = request.query as { size: number, paced?: boolean }
        return await reply.type('application/octet-stream').send(generated(size === -1 ? Infinity : size, record, paced))
      })
      app.get(`/text${suffix}`, { config, svc: { name: `text${suffix}`, description: 'A text of a given size', params: size } }, async (request, reply) => {
        track(`text${suffix}`, request)
        return await reply.type('text/plain').send('x'.repeat((request.query as { size: number }).size))
      })
      app.get(`/hang${suffix}`, { config, svc: { name: `hang${suffix}`, description: 'Never answers' } }, async (request, reply) => {
        track(`hang${suffix}`, request)
        for (const listener of started) listener(`hang${suffix}`)
        return reply
      })
    }
    app.get('/small', { svc: { name: 'small', description: 'A small result' } }, async (request) => {
      track('small', request)
      return { n: 1 }
    })
  }, serverOptions)
  const onStart = (name: string): Promise<void> => new Promise((resolve) => {
    const listener = (started_: string): void => {
      if (started_ !== name) return
      started.splice(started.indexOf(listener), 1)
      resolve()
    }
    started.push(listener)
  })
  return { app, seen: (name: string) => seen.get(name) ?? freshSeen(), onStart }
}

async function until (t: Test, what: string, check: () => boolean, ms = 5000): Promise<void> {
  const begun = Date.now()
  while (!check() && Date.now() - begun <= ms) await new Promise((resolve) => setTimeout(resolve, 10))
  t.ok(check(), `${what} within ${ms} ms (${Date.now() - begun} ms)`)
}

for (const suffix of ['', '.inject']) {
  const path = suffix === '' ? 'the router' : 'app.inject()'

  t.test(`${path}: a response past invoke.maxResultBytes is cut off there, 413 naming the command and the limit`, async (t) => {
    const { app, seen } = await budgetApp(t)
    const response = await execute(app, `download${suffix}`, { size: 10 * 1024 * 1024 })
    t.equal(response.statusCode, 413)
    t.same(response.json(), {
      ok: false,
      error: { code: 'PAYLOAD_TOO_LARGE', status: 413, message: `Command "download${suffix}": its route's response passed ${LIMIT} bytes (invoke.maxResultBytes), and was cut off there.` }
    })
    const record = seen(`download${suffix}`)
    await until(t, 'the route\'s stream is destroyed', () => record.destroyed === 1)
    await until(t, 'the route sees its request close', () => record.closed === 1)
    if (suffix === '') t.equal(record.socketClosed, 1, 'and its socket')
    t.ok(record.produced < 4 * LIMIT, `the stream was read no further than the budget (${record.produced} bytes of 10 MiB)`)
  })

  t.test(`${path}: an endless stream ends at the budget instead of never answering`, async (t) => {
    const { app, seen } = await budgetApp(t)
    const response = await execute(app, `download${suffix}`, { size: -1 })
    t.equal(response.json().error.code, 'PAYLOAD_TOO_LARGE')
    await until(t, 'the endless stream is destroyed', () => seen(`download${suffix}`).destroyed === 1)
  })

  t.test(`${path}: a body of exactly the budget is the result; one byte more is 413, a string as a stream`, async (t) => {
    const { app } = await budgetApp(t)
    const exact = await execute(app, `download${suffix}`, { size: LIMIT })
    t.equal(exact.statusCode, 200)
    t.equal(Buffer.from(exact.json().result, 'base64').length, LIMIT)
    t.equal((await execute(app, `download${suffix}`, { size: LIMIT + 1 })).statusCode, 413)
    t.equal((await execute(app, `text${suffix}`, { size: LIMIT })).json().result.length, LIMIT)
    t.equal((await execute(app, `text${suffix}`, { size: LIMIT + 1 })).json().error.code, 'PAYLOAD_TOO_LARGE', 'a body sent in one piece is counted too')
  })

  t.test(`${path}: a pipeline step holds at most what is left of the pipeline's budget; nothing runs after it`, async (t) => {
    const { app, seen } = await budgetApp(t)
    const response = await pipeline(app, {
      steps: [{ command: `text${suffix}`, params: { size: LIMIT / 2 } }, { command: `download${suffix}`, params: { size: -1 } }, { command: 'small' }],
      continueOnError: true
    })
    t.equal(response.statusCode, 200)
    const { ok, results } = response.json()
    t.equal(ok, false)
    t.equal(results.length, 2)
    t.same(results[1], {
      command: `download${suffix}`,
      ok: false,
      error: { code: 'PAYLOAD_TOO_LARGE', status: 413, message: `steps[1] (download${suffix}): the results of this pipeline would pass ${LIMIT} bytes (invoke.maxResultBytes); the pipeline stops here.` }
    })
    t.equal(seen('small').started, 0, 'the step after it never ran')
    const record = seen(`download${suffix}`)
    await until(t, 'the step\'s stream is destroyed', () => record.destroyed === 1)
    t.ok(record.produced <= 4 * LIMIT, `read ${record.produced} bytes`)
  })
}

t.test('the default budget is 8 MiB, and holds with invoke off: MCP still calls commands', async (t) => {
  const { app } = await budgetApp(t, {})
  t.equal((await execute(app, 'download', { size: 8 * 1024 * 1024 })).statusCode, 200)
  t.equal((await execute(app, 'download', { size: 8 * 1024 * 1024 + 1 })).statusCode, 413)
  const { app: mcpOnly } = await budgetApp(t, { invoke: false, mcp: true })
  const client = await httpClient(t, `${await listening(t, mcpOnly)}/mcp`)
  const result = await client.callTool({ name: 'download', arguments: { size: 8 * 1024 * 1024 + 1 } })
  t.equal(result.isError, true)
  t.same(textJson(result), { code: 'PAYLOAD_TOO_LARGE', message: 'Command "download": its route\'s response passed 8388608 bytes (invoke.maxResultBytes), and was cut off there.', status: 413 })
})

/** POSTs `body` to `url`, and aborts once `started` resolves. */
async function abandon (url: string, body: unknown, started: Promise<void>): Promise<void> {
  const controller = new AbortController()
  const request = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal })
  await started
  controller.abort()
  await request.then(async (response) => { await response.body?.cancel() }, () => {})
}

for (const suffix of ['', '.inject']) {
  const path = suffix === '' ? 'the router' : 'app.inject()'

  t.test(`${path}: a caller that goes away closes the inner request; its stream is destroyed`, async (t) => {
    const { app, seen, onStart } = await budgetApp(t, { invoke: { maxResultBytes: 1024 * 1024 * 1024 } })
    const origin = await listening(t, app)
    await abandon(`${origin}/svc/execute`, { command: `hang${suffix}` }, onStart(`hang${suffix}`))
    await until(t, 'a route that never answered sees its request close', () => seen(`hang${suffix}`).closed === 1, 2000)
    await abandon(`${origin}/svc/execute`, { command: `download${suffix}`, params: { size: -1, paced: true } }, onStart(`download${suffix}`))
    const record = seen(`download${suffix}`)
    await until(t, 'a streaming route sees its request close', () => record.closed === 1, 2000)
    await until(t, 'its stream is destroyed', () => record.destroyed === 1, 2000)
    const produced = record.produced
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(record.produced, produced, 'and read no further')
  })

  t.test(`${path}: a pipeline whose caller goes away stops at the step that was running`, async (t) => {
    const { app, seen, onStart } = await budgetApp(t)
    const origin = await listening(t, app)
    await abandon(`${origin}/svc/pipeline`, { steps: [{ command: `hang${suffix}` }, { command: 'small' }] }, onStart(`hang${suffix}`))
    await until(t, 'the running step sees its request close', () => seen(`hang${suffix}`).closed === 1, 2000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(seen('small').started, 0, 'the next step never runs')
  })
}

t.test('a caller that leaves before the command starts: the route never runs', async (t) => {
  let arrived: () => void = () => {}
  const waiting = new Promise<void>((resolve) => { arrived = resolve })
  let ran = 0
  const app = await readyApp(t, {}, (app) => {
    // The execute request waits in an app-wide hook until its caller has gone.
    app.addHook('preHandler', async (request) => {
      if (request.url !== '/svc/execute') return
      arrived()
      await once(request.raw.socket, 'close')
    })
    app.get('/small', { svc: { name: 'small', description: 'A small result' } }, async () => {
      ran++
      return { n: 1 }
    })
  }, { forceCloseConnections: true })
  const origin = await listening(t, app)
  await abandon(`${origin}/svc/execute`, { command: 'small' }, waiting)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(ran, 0)
})

t.test('a response destroyed by its route before its head, through app.inject(): 502, not a hang', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/gone', { config: { svcDispatch: 'inject' }, svc: { description: 'Destroys its response' } }, async (request, reply) => {
      reply.raw.destroy()
      return reply
    })
  })
  const response = await execute(app, 'gone')
  t.equal(response.statusCode, 502)
  t.equal(response.json().error.message, 'The route\'s response broke off before it was complete.')
})
