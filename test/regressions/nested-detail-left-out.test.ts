import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'

// Found when the descriptors began to describe items and properties: a route whose body nests a pointer
// into its own schema (`#/definitions/note`) or an array of mixed types was refused at ready(), though
// Fastify validates it and the manifest had served it before. Such nested detail is now left out.

t.test('nested parts the manifest cannot name are left out; the field stays described', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/gifts', {
      schema: {
        body: {
          type: 'object',
          definitions: { note: { type: 'string', maxLength: 140 } },
          properties: {
            notes: { type: 'array', items: { $ref: '#/definitions/note' } },
            mixed: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
            card: { type: 'object', properties: { from: { $ref: '#/definitions/note' } } },
            count: { type: 'integer', minimum: 1 }
          },
          required: ['count']
        }
      },
      svc: { description: 'Send a gift' }
    }, async () => ({ sent: true }))
  })
  const { params } = (await fetchManifest(app)).commands.gifts
  t.same(params, {
    notes: { type: 'array', required: false },
    mixed: { type: 'array', required: false },
    card: { type: 'object', required: false, properties: { from: { type: 'any', required: false } } },
    count: { type: 'number', required: true, minimum: 1 }
  })
  const called = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'gifts', params: { count: 1, notes: ['hi'] } } })
  t.same(called.json(), { ok: true, result: { sent: true } }, 'the route still validates and runs')
})

t.test('svc.returns, an event field or a type\'s own property that names nothing is still refused', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/x', { svc: { description: 'X', returns: { $ref: 'Missing' } } }, async () => ({}))
  }), { code: 'FST_SVC_UNKNOWN_REF', message: /svc\.returns refers to "Missing"/ })
  await t.rejects(readyApp(t, { events: { 'a.b': { description: 'A', data: { type: 'object', properties: { p: { $ref: 'Missing' } } } } } }), { code: 'FST_SVC_UNKNOWN_REF', message: /event "a\.b" data\.p/ })
  await t.rejects(readyApp(t, { types: { Cart: { type: 'object', properties: { p: { $ref: 'Missing' } } } } }), { code: 'FST_SVC_UNKNOWN_REF', message: /type "Cart"\.p/ })
})
