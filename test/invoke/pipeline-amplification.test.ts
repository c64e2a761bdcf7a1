import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { pipeline } from '../helpers/invoke.js'

// Measured: one unauthenticated pipeline of ~900 KB (a step returning a 400 KB string, then a step holding
// 50,000 "$prev.s" references) expanded every reference before checking a size, and the process died of
// heap exhaustion. References are now resolved against the route's body limit, counted while resolving.

const big = 'x'.repeat(400 * 1024)

async function shop (t: Test, options: Parameters<typeof readyApp>[1] = {}, serverOptions = {}) {
  const calls = { store: 0 }
  const app = await readyApp(t, options, (app) => {
    app.get('/blob', { svc: { name: 'blob', description: 'A large text' } }, async () => ({ s: big, list: [{ s: big }] }))
    app.get('/small', { svc: { name: 'small', description: 'A small result' } }, async () => ({ s: 'tiny', n: 7 }))
    app.post('/store', {
      svc: { name: 'store', description: 'Stores anything', params: Type.Object({ items: Type.Optional(Type.Array(Type.Unknown())) }, { additionalProperties: true }) }
    }, async (request) => {
      calls.store++
      return { stored: JSON.stringify(request.body).length }
    })
    app.post('/tight', {
      bodyLimit: 1000,
      svc: { name: 'tight', description: 'A route with a small body limit', params: Type.Object({}, { additionalProperties: true }) }
    }, async () => ({ ok: true }))
    app.get('/lookup', { svc: { name: 'lookup', description: 'Query params', params: Type.Object({ q: Type.Optional(Type.Array(Type.String())) }) } }, async () => ({ found: 0 }))
  }, serverOptions)
  return { app, calls }
}

t.test('50,000 references to a 400 KB result: 413 naming the step, bounded memory, the route never runs', async (t) => {
  const { app, calls } = await shop(t)
  const before = process.memoryUsage().heapUsed
  const response = await pipeline(app, {
    steps: [{ command: 'blob' }, { command: 'store', params: { items: Array(50_000).fill('$prev.s') } }]
  })
  const grown = process.memoryUsage().heapUsed - before
  t.equal(response.statusCode, 200)
  const { ok, results } = response.json()
  t.equal(ok, false)
  t.equal(results.length, 2)
  t.same(results[1], {
    command: 'store',
    ok: false,
    error: { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'steps[1] (store): its params, with references resolved, pass the route\'s body limit of 1048576 bytes.' }
  })
  t.equal(calls.store, 0, 'the step never reached its route')
  // The expansion would be 20 GB; one budget's worth of work is a few MB.
  t.ok(grown < 64 * 1024 * 1024, `heap grew by ${Math.round(grown / 1024 / 1024)} MB`)
})

t.test('neighbours: named results, indexes, nesting and query params are counted the same way', async (t) => {
  const { app, calls } = await shop(t)
  const shapes: Array<[string, unknown]> = [
    ['$name', { items: Array(4).fill('$b.s') }],
    ['$name[index]', { items: Array(4).fill('$b.list[0].s') }],
    ['a whole object', { items: Array(4).fill('$b') }],
    ['references nested in objects', { items: [{ a: { b: Array(4).fill('$prev.s') } }] }]
  ]
  for (const [shape, params] of shapes) {
    const response = await pipeline(app, { steps: [{ command: 'blob', as: 'b' }, { command: 'store', params }] })
    t.equal(response.json().results[1]?.error?.code, 'PAYLOAD_TOO_LARGE', shape)
  }
  const query = await pipeline(app, { steps: [{ command: 'blob' }, { command: 'lookup', params: { q: Array(4).fill('$prev.s') } }] })
  t.equal(query.json().results[1].error.code, 'PAYLOAD_TOO_LARGE', 'params that go to the query string too')
  t.equal(calls.store, 0)
})

t.test('within the limit, references resolve as before', async (t) => {
  const { app, calls } = await shop(t)
  const two = await pipeline(app, { steps: [{ command: 'blob', as: 'b' }, { command: 'store', params: { items: ['$b.s', '$prev.list[0].s'] } }] })
  t.same(two.json().results[1], { command: 'store', ok: true, result: { stored: 2 * big.length + 17 } })
  const many = await pipeline(app, { steps: [{ command: 'small' }, { command: 'store', params: { items: Array(10_000).fill('$prev.n') } }] })
  t.equal(many.json().results[1].ok, true, '10,000 references to a small value pass')
  t.equal(calls.store, 2)
})

t.test('the route\'s own bodyLimit, and the server\'s, are the budget', async (t) => {
  const { app } = await shop(t)
  const whole = await pipeline(app, { steps: [{ command: 'blob' }, { command: 'tight', params: { a: '$prev' } }] })
  t.equal(whole.json().results[1].error.code, 'PAYLOAD_TOO_LARGE', 'a result larger than the budget stops while it is measured')
  const leaves = await pipeline(app, { steps: [{ command: 'small' }, { command: 'tight', params: { a: [true, false, null, 1.5, '$prev'] } }] })
  t.equal(leaves.json().results[1].ok, true, 'booleans, null and numbers are counted too')
  const tight = await pipeline(app, { steps: [{ command: 'small' }, { command: 'tight', params: { a: Array(200).fill('$prev.s') } }] })
  t.equal(tight.json().results[1].error.message, 'steps[1] (tight): its params, with references resolved, pass the route\'s body limit of 1000 bytes.')
  const fits = await pipeline(app, { steps: [{ command: 'small' }, { command: 'tight', params: { a: Array(20).fill('$prev.s') } }] })
  t.equal(fits.json().results[1].ok, true)
  const { app: small } = await shop(t, {}, { bodyLimit: 500_000 })
  const server = await pipeline(small, { steps: [{ command: 'blob' }, { command: 'store', params: { items: ['$prev.s', '$prev.s'] } }] })
  t.match(server.json().results[1].error.message, 'body limit of 500000 bytes')
})

t.test('the results a pipeline holds are capped by invoke.maxResultBytes; the pipeline stops there', async (t) => {
  const { app, calls } = await shop(t, { invoke: { maxResultBytes: 2 * 1024 * 1024 } })
  const response = await pipeline(app, { steps: [{ command: 'blob' }, { command: 'blob' }, { command: 'blob' }, { command: 'small' }], continueOnError: true })
  const { ok, results } = response.json()
  t.equal(ok, false)
  t.same(results.map((result: { ok: boolean }) => result.ok), [true, true, false], 'the third 800 KB result passes 2 MiB; nothing runs after it')
  t.same(results[2].error, {
    code: 'PAYLOAD_TOO_LARGE',
    status: 413,
    message: 'steps[2] (blob): the results of this pipeline would pass 2097152 bytes (invoke.maxResultBytes); the pipeline stops here.'
  })
  t.equal(calls.store, 0)
})

t.test('an unknown command is still UNKNOWN_COMMAND, its references never looked at', async (t) => {
  const { app } = await shop(t)
  const response = await pipeline(app, { steps: [{ command: 'nope', params: { a: '$prev.x' } }] })
  t.equal(response.json().results[0].error.code, 'UNKNOWN_COMMAND')
})
