// A path param with a regexp in the URL (`/:id(\\d+)`) carries it as `pattern`, anchored as the router
// applies it, so an agent sends what reaches the route.
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

const echo = async (request: { params: unknown }) => request.params

function routes (app: FastifyInstance): void {
  app.get('/tables/:id(\\d+)', { schema: { summary: 'A table' }, svc: { name: 'tables.get' } }, echo)
  app.get('/roles/:id(^\\d+$)', { schema: { summary: 'A role', params: Type.Object({ id: Type.Integer({ description: 'Role id' }) }) }, svc: { name: 'roles.get' } }, echo)
  app.get('/users/:id(\\d+)', { schema: { summary: 'A user', params: Type.Object({ id: Type.String({ pattern: '^[0-9]{1,5}' }) }) }, svc: { name: 'users.get' } }, echo)
  app.get('/orders/:id(\\d+)', { schema: { summary: 'An order', params: Type.Object({ id: Type.String({ pattern: '\\d+' }) }) }, svc: { name: 'orders.get' } }, echo)
  app.get('/exports/:file(^\\w+).:ext(csv|json)', { schema: { summary: 'An export' }, svc: { name: 'exports.get' } }, echo)
  app.get('/codes/:code(\\w\\-\\w)', { schema: { summary: 'A code' }, svc: { name: 'codes.get' } }, echo)
}

t.test('the manifest: pattern anchored as the router applies it; both patterns when the schema has its own', async (t) => {
  const { commands } = await fetchManifest(await readyApp(t, {}, routes))
  t.same(commands['tables.get'].params, { id: { type: 'string', required: true, pattern: '^\\d+$' } })
  t.same(commands['roles.get'].params, { id: { type: 'number', required: true, description: 'Role id', pattern: '^\\d+$' } })
  t.same(commands['users.get'].params, { id: { type: 'string', required: true, pattern: '^(?=[\\s\\S]*?(?:^[0-9]{1,5}))(?:\\d+)$' } })
  t.same(commands['orders.get'].params, { id: { type: 'string', required: true, pattern: '^\\d+$' } }, 'the same pattern, once')
  t.same(commands['exports.get'].params, { file: { type: 'string', required: true, pattern: '^\\w+$' }, ext: { type: 'string', required: true, pattern: '^(?:csv|json)$' } })
  t.same(commands['codes.get'].params, { code: { type: 'string', required: true } }, 'a regexp JSON Schema validators cannot compile (u flag) is left out')
})

t.test('the combined pattern takes exactly what both take', async (t) => {
  const { commands } = await fetchManifest(await readyApp(t, {}, routes))
  const pattern = new RegExp(commands['users.get'].params!.id.pattern!, 'u')
  t.same(['12', '123456', '12a', '', '007'].map((text) => pattern.test(text)), [true, true, false, false, true])
})

t.test('a value the pattern refuses does not reach the route: INVALID_PARAMS before it runs', async (t) => {
  const app = await readyApp(t, {}, routes)
  t.same((await execute(app, 'tables.get', { id: 42 })).json(), { ok: true, result: { id: '42' } })
  t.same((await execute(app, 'exports.get', { file: 'report', ext: 'csv' })).json(), { ok: true, result: { file: 'report', ext: 'csv' } })
  const refused = await execute(app, 'tables.get', { id: 'users' })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /Path param "id" = "users" does not reach this command's route/ } })
})
