import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

// A requestId is echoed in every answer, so it is checked before anything runs: measured on 0.2, one nested
// 10,000 deep ran cart.add and then answered 500 (its echo could not be written), so a client that retried
// added twice. An inner URL is held to what a direct request is held to: a 900 KB query param made a
// 922 KB log line, where a direct request gets 431.

async function cartApp (t: Test, serverOptions = {}) {
  const calls = { add: 0, find: 0 }
  const app = await readyApp(t, {}, (app) => {
    app.post('/cart/items', { svc: { name: 'cart.add', description: 'Add an item', params: Type.Object({ sku: Type.String() }) } }, async (request) => {
      calls.add++
      return { added: (request.body as { sku: string }).sku }
    })
    app.get('/items', { svc: { name: 'items.find', description: 'Find items', params: Type.Object({ q: Type.Optional(Type.String()), tags: Type.Optional(Type.Array(Type.String())) }) } }, async (request) => {
      calls.find++
      return { query: request.query }
    })
    app.get('/items/:id', { svc: { name: 'items.get', description: 'One item' } }, async (request) => {
      calls.find++
      return { params: request.params }
    })
  }, serverOptions)
  return { app, calls }
}

function call (app: Awaited<ReturnType<typeof cartApp>>['app'], body: string) {
  return app.inject({ method: 'POST', url: '/svc/execute', headers: { 'content-type': 'application/json' }, payload: body })
}

const REFUSED = { code: 'INVALID_REQUEST', status: 400, message: '"requestId" must be a string of at most 256 UTF-16 units or a finite number when present.' }

t.test('a requestId that is not a short string or a finite number is refused before the command runs', async (t) => {
  const { app, calls } = await cartApp(t)
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
  const cases: Array<[string, string]> = [
    ['nested 10,000 deep', deep],
    ['an object', '{"n":1}'],
    ['an array', '["r-1"]'],
    ['true', 'true'],
    ['false', 'false'],
    ['a number too large to be finite', '1e400'],
    ['a negative one', '-1e400'],
    ['257 characters', JSON.stringify('r'.repeat(257))],
    ['129 emoji, 258 UTF-16 units', JSON.stringify('😀'.repeat(129))]
  ]
  for (const [label, requestId] of cases) {
    const response = await call(app, `{"command":"cart.add","params":{"sku":"mug"},"requestId":${requestId}}`)
    t.equal(response.statusCode, 400, label)
    t.same(response.json(), { ok: false, error: REFUSED }, `${label}: refused, and not echoed`)
  }
  const badCommand = await call(app, '{"command":7,"requestId":{"n":1}}')
  t.same(badCommand.json().error, REFUSED, 'checked before anything else of the envelope')
  t.equal(calls.add, 0, 'cart.add never ran')
})

t.test('a string of up to 256 UTF-16 units or a finite number is echoed; null is absent', async (t) => {
  const { app, calls } = await cartApp(t)
  const echoed: unknown[] = ['r'.repeat(256), '😀'.repeat(128), '', 0, -7.5, 1e300, Number.MAX_SAFE_INTEGER + 2]
  for (const requestId of echoed) {
    const response = await call(app, JSON.stringify({ command: 'cart.add', params: { sku: 'mug' }, requestId }))
    t.same(response.json(), { ok: true, result: { added: 'mug' }, requestId }, JSON.stringify(requestId).slice(0, 20))
  }
  const unknown = await call(app, JSON.stringify({ command: 'nope', requestId: 'r-2' }))
  t.equal(unknown.json().requestId, 'r-2', 'refusals carry it too')
  const none = await call(app, '{"command":"cart.add","params":{"sku":"mug"},"requestId":null}')
  t.same(none.json(), { ok: true, result: { added: 'mug' } }, 'null: no requestId in the answer')
  t.equal(calls.add, echoed.length + 1)
})

/** The log lines an app writes, as text. */
function logged () {
  const lines: string[] = []
  return { lines, logger: { level: 'info', stream: { write (line: string) { lines.push(line) } } } }
}

t.test('a query param that would make a URL past maxHeaderSize: 400 naming it, the route never runs, no long log line', async (t) => {
  const log = logged()
  const { app, calls } = await cartApp(t, { logger: log.logger })
  const huge = 'x'.repeat(900 * 1024)
  const response = await execute(app, 'items.find', { q: huge })
  t.equal(response.statusCode, 400)
  t.same(response.json().error, {
    code: 'INVALID_PARAMS',
    status: 400,
    message: 'Param "q" makes the route\'s URL longer than 16384 characters, the server\'s maxHeaderSize, which a direct request is held to: send a shorter value.'
  })
  const many = await execute(app, 'items.find', { tags: Array(2000).fill('abcdefghij') })
  t.match(many.json().error.message, /^Param "tags" makes the route's URL longer than 16384/, 'an array of short values adds up')
  const path = await execute(app, 'items.get', { id: 'y'.repeat(20_000) })
  t.match(path.json().error.message, /^Param "id" makes/, 'a path param too')
  const longName = await execute(app, 'items.find', { ['k'.repeat(20_000)]: 1 })
  t.match(longName.json().error.message, new RegExp(`^Param "${'k'.repeat(64)}…" makes`), 'a long name is cut short in the message')
  const steps = await pipeline(app, { steps: [{ command: 'items.find', params: { q: huge } }] })
  t.equal(steps.json().results[0].error.code, 'INVALID_PARAMS', 'a pipeline step too')
  t.equal(calls.find, 0, 'the route never ran')
  const longest = Math.max(...log.lines.map((line) => line.length))
  t.ok(longest < 4096, `the longest log line is ${longest} characters`)
})

t.test('the limit is the server\'s own maxHeaderSize, and a URL of exactly that length passes', async (t) => {
  const { app, calls } = await cartApp(t, { http: { maxHeaderSize: 1024 } })
  // `/items?q=` is 9 characters.
  const fits = await execute(app, 'items.find', { q: 'z'.repeat(1024 - 9) })
  t.equal(fits.json().result.query.q.length, 1024 - 9)
  const over = await execute(app, 'items.find', { q: 'z'.repeat(1024 - 8) })
  t.match(over.json().error.message, 'longer than 1024 characters')
  t.equal(calls.find, 1)
  const log = logged()
  const { app: logging } = await cartApp(t, { logger: log.logger })
  const within = await execute(logging, 'items.find', { q: 'w'.repeat(16_000) })
  t.equal(within.statusCode, 200, 'within the default, the call is made')
  const longest = Math.max(...log.lines.map((line) => line.length))
  t.ok(longest < 17 * 1024, `and its log lines stay within what a direct request could log (${longest} characters)`)
})

t.test('MCP: a JSON-RPC id that is not a string or a finite number is refused before the tool runs', async (t) => {
  let ran = 0
  const app = await readyApp(t, { mcp: true }, (app) => {
    app.get('/ping', { svc: { description: 'Ping' } }, async () => {
      ran++
      return { pong: true }
    })
  })
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }
  for (const id of ['{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '{"n":1}', 'true', '1e400']) {
    const response = await app.inject({ method: 'POST', url: '/mcp', headers, payload: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ping","arguments":{}}}` })
    t.equal(response.statusCode, 400, id.slice(0, 12))
    t.equal(response.json().error.code, -32600)
  }
  t.equal(ran, 0)
})
