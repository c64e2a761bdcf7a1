import t from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

// A route's JSON answer reaches the caller as the route wrote it, inside the envelope; what is not one
// JSON value is passed on as text, so the envelope is always valid JSON.

t.test('the route\'s JSON text is the envelope\'s result, byte for byte', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/spaced', { svc: { description: 'JSON with spacing and escapes' } }, async (request, reply) => reply.type('application/json').send('{ "a" : [1, 2.5e3],\n "é": "\\u00e9\\"" }'))
    app.get('/broken', { svc: { description: 'Calls its text JSON' } }, async (request, reply) => reply.type('application/json').send('{"a":1}{"b":2}'))
    app.get('/items', { svc: { description: 'Items' } }, async () => [{ sku: 'mug' }])
  })
  const spaced = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'spaced', requestId: 'r "1"' } })
  t.equal(spaced.statusCode, 200)
  t.match(spaced.headers['content-type'], /^application\/json/)
  t.equal(spaced.body, '{"ok":true,"result":{ "a" : [1, 2.5e3],\n "é": "\\u00e9\\"" },"requestId":"r \\"1\\""}')
  t.same(spaced.json(), { ok: true, result: { a: [1, 2500], é: 'é"' }, requestId: 'r "1"' })
  t.same((await execute(app, 'broken')).json(), { ok: true, result: '{"a":1}{"b":2}' }, 'not one JSON value: its text')
  const steps = await pipeline(app, { steps: [{ command: 'items' }, { command: 'spaced', params: { sku: '$prev[0].sku' } }] })
  t.same(steps.json().results, [{ command: 'items', ok: true, result: [{ sku: 'mug' }] }, { command: 'spaced', ok: true, result: { a: [1, 2500], é: 'é"' } }], 'a pipeline reads the values')
})
