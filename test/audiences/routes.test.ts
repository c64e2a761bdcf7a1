import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { audienceShop, withToken } from '../helpers/audiences.js'

/** What matters of an answer to compare two: status, body and the headers a client could tell apart. */
function shape (response: { statusCode: number, body: string, headers: Record<string, unknown> }): unknown {
  const { 'content-type': type, 'www-authenticate': challenge, vary } = response.headers
  return { status: response.statusCode, body: response.body, type, challenge, vary }
}

t.test('a hidden command\'s own route answers everyone who may not see it as the app answers an unknown URL', async (t) => {
  const app = await audienceShop(t)
  const unknownGet = shape(await app.inject({ url: '/admin/stats' }))
  t.equal((unknownGet as { status: number }).status, 404)
  for (const headers of [{}, withToken('user-token'), withToken('ops-token'), withToken('wrong'), { authorization: 'Bearer' }, { authorization: 'Basic eDp5' }]) {
    const response = await app.inject({ url: '/admin/stats', headers })
    const notThere = await app.inject({ url: '/admin/stats-gone', headers })
    t.same(shape(response), { ...(shape(notThere) as object), body: notThere.body.replace('/admin/stats-gone', '/admin/stats') }, `${JSON.stringify(headers)}: as an unknown URL`)
    t.equal(response.statusCode, 404)
  }
  const head = await app.inject({ method: 'HEAD', url: '/admin/stats', headers: withToken('user-token') })
  t.equal(head.statusCode, 404, 'the HEAD twin too')
  const post = await app.inject({ method: 'POST', url: '/ops/restart', headers: { ...withToken('user-token'), 'content-type': 'application/json' }, payload: '{not json' })
  t.equal(post.statusCode, 404, 'before the body is read: no 400 that would confirm the route')
  const admin = await app.inject({ url: '/admin/stats', headers: withToken('admin-token') })
  t.same([admin.statusCode, admin.json()], [200, { sales: 42, by: 'root' }], 'the caller who may see it calls it')
})

t.test('a custom not-found handler answers for a hidden command as for any unknown URL', async (t) => {
  const app = await audienceShop(t, {
    routes: (app) => {
      app.setNotFoundHandler(async (request, reply) => reply.code(404).header('x-not-found', 'yes').send({ nothing: request.url }))
    }
  })
  const hidden = await app.inject({ url: '/admin/stats', headers: withToken('ops-token') })
  t.same([hidden.statusCode, hidden.headers['x-not-found'], hidden.json()], [404, 'yes', { nothing: '/admin/stats' }])
  const unknown = await app.inject({ url: '/admin/other' })
  t.same([unknown.statusCode, unknown.headers['x-not-found']], [404, 'yes'])
})

t.test('execute and pipeline: a hidden command the caller may not see is an unknown command, in the same words', async (t) => {
  const app = await audienceShop(t)
  const execute = async (command: string, headers = {}, params = {}) => await app.inject({ method: 'POST', url: '/svc/execute', headers, payload: { command, params } })
  const unknown = await execute('nothing.here')
  t.equal(unknown.statusCode, 404)
  const expected = (name: string) => ({ ok: false, error: { status: 404, code: 'UNKNOWN_COMMAND', message: `Unknown command "${name}". The manifest lists the commands.` } })
  t.same(unknown.json(), expected('nothing.here'))
  for (const headers of [{}, withToken('user-token'), withToken('ops-token'), withToken('wrong')]) {
    const response = await execute('admin.stats', headers)
    t.same([response.statusCode, response.json()], [404, expected('admin.stats')], `${JSON.stringify(headers)}`)
    const streamed = await app.inject({ method: 'POST', url: '/svc/execute', headers, payload: { command: 'admin.stats', stream: true } })
    t.same([streamed.statusCode, streamed.json()], [404, expected('admin.stats')], 'streamed too')
  }
  const allowed = await execute('admin.stats', withToken('admin-token'))
  t.same([allowed.statusCode, allowed.json()], [200, { ok: true, result: { sales: 42, by: 'root' } }])
  const ops = await execute('ops.restart', withToken('ops-token'), { worker: 'w1' })
  t.same(ops.json(), { ok: true, result: { restarted: 'w1' } })

  const pipeline = async (headers: Record<string, string>) => await app.inject({
    method: 'POST',
    url: '/svc/pipeline',
    headers,
    payload: { steps: [{ command: 'catalog.list' }, { command: 'ops.restart', params: { worker: { $ref: 'prev.items' } } }], continueOnError: true }
  })
  const refused = (await pipeline(withToken('user-token'))).json()
  t.same(refused.results[1], { command: 'ops.restart', ...expected('ops.restart') }, 'an unknown command, before its references are read')
  const reference = (await pipeline(withToken('ops-token'))).json()
  t.equal(reference.results[1].error.code, 'INVALID_PARAMS', 'the caller who sees it gets the route\'s own answer')
})

t.test('a hidden command without scopes exists for every verified credential', async (t) => {
  const app = await audienceShop(t, {
    routes: (app) => { app.get('/internal/ping', { svc: { name: 'internal.ping', description: 'Ping, for staff', auth: 'hidden' } }, async () => 'pong') }
  })
  t.equal((await app.inject({ url: '/internal/ping' })).statusCode, 404)
  t.equal((await app.inject({ url: '/internal/ping', headers: withToken('wrong') })).statusCode, 404)
  t.equal((await app.inject({ url: '/internal/ping', headers: withToken('user-token') })).body, 'pong')
  const executed = await app.inject({ method: 'POST', url: '/svc/execute', headers: withToken('user-token'), payload: { command: 'internal.ping' } })
  t.same(executed.json(), { ok: true, result: 'pong' })
  const manifest = await app.inject({ url: '/.well-known/svc.json', headers: withToken('user-token') })
  t.ok('internal.ping' in manifest.json().commands)
})

t.test('the protected resource metadata names only the scopes of the public commands', async (t) => {
  const app = await audienceShop(t, {
    options: { auth: { type: 'bearer', description: 'Shop tokens', verify: () => ({ sub: 'x' }), authorizationServers: ['https://id.example'] } },
    routes: (app) => { app.get('/reports', { svc: { name: 'reports.list', description: 'Reports', auth: 'required', scopes: ['reports'] } }, async () => []) }
  })
  const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource' })
  t.same(metadata.json().scopes_supported, ['reports'], 'the hidden commands\' scopes (admin, ops) are not named')
})

t.test('svc.auth: \'hidden\' needs the plugin\'s auth, and any other value is refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(svcManifest, requiredOptions)
  app.get('/admin', { svc: { description: 'Admin', auth: 'hidden' } }, async () => 'x')
  await t.rejects(async () => { await app.ready() }, { code: 'FST_SVC_AUTH_NOT_CONFIGURED', message: /GET \/admin require auth/ })
  const other = Fastify()
  t.teardown(() => other.close())
  await other.register(svcManifest, requiredOptions)
  other.get('/admin', { svc: { description: 'Admin', auth: 'secret' as 'hidden' } }, async () => 'x')
  await t.rejects(async () => { await other.ready() }, { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /"required", "optional" or "hidden"/ })
})
