import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

// Measured: with `GET /items/:id` a command and `GET /items/admin` not one, execute { command: 'items.get',
// params: { id: 'admin' } } answered /items/admin's body: the router prefers the static route. A call now
// reaches its command's own route or nothing.

async function itemsApp (t: Test) {
  const ran: string[] = []
  const app = await readyApp(t, {}, (app) => {
    app.get('/items/admin', async () => { ran.push('admin'); return { secret: true } })
    app.get('/items/:id', { svc: { name: 'items.get', description: 'One item' } }, async (request) => request.params)
    app.get('/files/secret', async () => { ran.push('secret'); return { secret: true } })
    app.get('/files/*', { svc: { name: 'files.read', description: 'A file' } }, async (request) => request.params)
    app.get('/docs/internal', async () => { ran.push('internal'); return { secret: true } })
    app.get('/docs/:page?', { svc: { name: 'docs.read', description: 'A page' } }, async (request) => request.params)
    app.get('/range/:from-:to', { svc: { name: 'range', description: 'Two params in one segment' } }, async (request) => request.params)
    app.get('/tenant/:id', { constraints: { host: 'a.example' }, svc: { name: 'tenant.a', description: 'Host a' } }, async (request) => ({ host: request.hostname, ...request.params as object }))
  })
  return { app, ran }
}

t.test('a path param that would reach a static sibling is INVALID_PARAMS naming it', async (t) => {
  const { app, ran } = await itemsApp(t)
  const response = await execute(app, 'items.get', { id: 'admin' })
  t.equal(response.statusCode, 400)
  t.same(response.json().error, {
    code: 'INVALID_PARAMS',
    status: 400,
    message: 'Path param "id" = "admin" does not reach this command\'s route (GET /items/:id): the URL it makes belongs to another route or to none.'
  })
  t.same((await execute(app, 'items.get', { id: 'admins' })).json().result, { id: 'admins' }, 'other values reach the command')
  t.same((await execute(app, 'items.get', { id: 'ADMIN' })).json().result, { id: 'ADMIN' })
  t.same(ran, [], 'the other route never ran')
})

t.test('neighbours: wildcard, optional param, two params in a segment, pipeline', async (t) => {
  const { app, ran } = await itemsApp(t)
  t.equal((await execute(app, 'files.read', { '*': 'secret' })).json().error.code, 'INVALID_PARAMS', 'wildcard beside a static route')
  t.same((await execute(app, 'files.read', { '*': 'secret/x' })).json().result, { '*': 'secret/x' })
  t.equal((await execute(app, 'docs.read', { page: 'internal' })).json().error.code, 'INVALID_PARAMS', 'optional param beside a static route')
  t.same((await execute(app, 'docs.read')).json().result, {}, 'the optional param left out')
  const split = await execute(app, 'range', { from: 'a', to: 'b-c' })
  t.equal(split.json().error.code, 'INVALID_PARAMS', 'a value the router would split differently')
  t.match(split.json().error.message, 'Path param "from" = "a"')
  t.same((await execute(app, 'range', { from: 'a-b', to: 'c' })).json().result, { from: 'a-b', to: 'c' })
  const steps = await pipeline(app, { steps: [{ command: 'items.get', params: { id: 'x' } }, { command: 'items.get', params: { id: 'admin' } }] })
  t.same(steps.json().results.map((result: { ok: boolean }) => result.ok), [true, false], 'through a pipeline too')
  t.same(ran, [])
})

t.test('the inner request carries the caller\'s Host: host constraints and tenancy behave as on a direct call', async (t) => {
  const { app } = await itemsApp(t)
  const direct = await app.inject({ method: 'GET', url: '/tenant/7', headers: { host: 'a.example' } })
  const viaExecute = await execute(app, 'tenant.a', { id: '7' }, { host: 'a.example' })
  t.equal(viaExecute.statusCode, 200)
  t.same(viaExecute.json().result, direct.json())
  t.same(viaExecute.json().result, { host: 'a.example', id: '7' })
  const otherHost = await execute(app, 'tenant.a', { id: '7' }, { host: 'b.example' })
  t.equal(otherHost.json().error.code, 'INVALID_PARAMS', 'another host makes a URL of no route of this command')
})
