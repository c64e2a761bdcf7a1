import { Type } from '@sinclair/typebox'
import t from 'tap'
import { readyApp } from '../helpers/app.js'

/**
 * A trial on a real app met its problems one boot at a time: the first boot listed 14 missing descriptions,
 * the second, once they were written, the duplicate names. One boot must list them all.
 */
t.test('a missing description, a duplicate name and an unmappable schema: one rejection lists them all', async (t) => {
  const error = await readyApp(t, { requireDescriptions: true }, (app) => {
    // No description, and the same derived name as the route after it.
    app.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }) }, svc: {} }, async () => ({}))
    app.delete('/users/:id', { schema: { summary: 'Delete a user' }, svc: {} }, async () => ({}))
    // A response Fastify tolerates and the manifest cannot name.
    app.get('/stats', { schema: { summary: 'Stats', response: { 200: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, svc: {} }, async () => 1)
  }).then(() => undefined, (caught: unknown) => caught) as Error & { errors: Array<{ code: string, message: string }> }
  t.match(error, { code: 'FST_SVC_INVALID_ROUTES' })
  t.same(error.errors.map(({ code }) => code), ['FST_SVC_MISSING_DESCRIPTION', 'FST_SVC_DUPLICATE_NAME', 'FST_SVC_UNMAPPABLE_SCHEMA'])
  t.equal(error.message, [
    '3 problems:',
    '- FST_SVC_MISSING_DESCRIPTION: Missing description: route GET /users/:id (svc.description) needs a non-empty "description" string. Set svc.description, or give the route schema a description or summary.',
    '- FST_SVC_DUPLICATE_NAME: Duplicate name: routes GET /users/:id and DELETE /users/:id are both command "users". Set svc.name on one of them, or name commands by their method too: names: { style: \'rest\' }.',
    '- FST_SVC_UNMAPPABLE_SCHEMA: Cannot map schema to a manifest type: GET /stats schema.response.200: it allows string, number. Give it exactly ' +
      'one type (nullable and enums of one type are fine). Or set svc.returns to describe the return type without changing the route\'s response schema.'
  ].join('\n'))
})

t.test('a duplicate name is found beside a schema problem of one of the two routes', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/report', { svc: { description: 'Report', returns: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, async () => ({}))
    app.post('/report', { svc: { description: 'New report' } }, async () => ({}))
  }), { code: 'FST_SVC_INVALID_ROUTES', errors: [{ code: 'FST_SVC_DUPLICATE_NAME', message: /GET \/report and POST \/report/ }, { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/report svc\.returns/ }] })
})

t.test('a name that cannot be derived is found beside a missing description and a schema problem of the same route', async (t) => {
  await t.rejects(readyApp(t, { requireDescriptions: true }, (app) => {
    app.get('/:tenant', { svc: { returns: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, async () => ({}))
  }), {
    code: 'FST_SVC_INVALID_ROUTES',
    errors: [{ code: 'FST_SVC_MISSING_DESCRIPTION' }, { code: 'FST_SVC_NAME_NOT_DERIVABLE' }, { code: 'FST_SVC_UNMAPPABLE_SCHEMA' }]
  })
})
