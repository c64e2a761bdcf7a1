import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { logCollector } from '../helpers/process.js'

const Role = Type.Object({ id: Type.Integer(), name: Type.String() })

/** An admin API whose routes have schemas but no summary or description, as many real apps do. */
function undocumentedRoutes (app: FastifyInstance): void {
  app.get('/roles', { schema: { response: { 200: Type.Array(Role) } }, svc: {} }, async () => [])
  app.get('/roles/:id', { schema: { params: Type.Object({ id: Type.Integer() }), response: { 200: Role } }, svc: true }, async () => ({ id: 1, name: 'admin' }))
  app.post('/roles', { schema: { body: Type.Object({ name: Type.String() }) }, svc: { name: 'roles.create' } }, async () => ({}))
  app.get('/health', { schema: { summary: 'Liveness' }, svc: {} }, async () => ({ ok: true }))
}

t.test('a route without a description is described by its method and URL, and one warning lists every such route', async (t) => {
  const logs = logCollector()
  const app = await readyApp(t, { names: { style: 'rest' } }, undocumentedRoutes, { logger: { level: 'warn', stream: logs.stream } })
  const { commands } = await fetchManifest(app)
  t.equal(commands['roles.list'].description, 'GET /roles')
  t.equal(commands['roles.get'].description, 'GET /roles/:id', 'the two GETs of a path are told apart')
  t.equal(commands['roles.create'].description, 'POST /roles')
  t.equal(commands['health.list'].description, 'Liveness', 'a summary is a description')
  const warnings = logs.lines.filter((line) => line.derivedDescriptions !== undefined)
  t.equal(warnings.length, 1, 'one warning, not one per route')
  t.match(warnings[0], {
    level: 40,
    derivedDescriptions: ['GET /roles', 'GET /roles/:id', 'POST /roles'],
    msg: '3 routes have no description of their own, so each is described by method and URL (such as "GET /roles"), which tells an agent ' +
      'little: GET /roles; GET /roles/:id; POST /roles. Set svc.description, or the route schema\'s description or summary; ' +
      'requireDescriptions: true makes a missing description an error.'
  })
})

t.test('one route without a description: the warning says so in the singular', async (t) => {
  const logs = logCollector()
  await readyApp(t, {}, (app) => {
    app.register(async (admin) => {
      admin.get('/stats', { svc: {} }, async () => ({}))
    }, { prefix: '/admin' })
  }, { logger: { level: 'warn', stream: logs.stream } })
  t.match(logs.lines.filter((line) => line.derivedDescriptions !== undefined), [{
    derivedDescriptions: ['GET /admin/stats'],
    msg: /^1 route has no description of its own, so it is described by method and URL \(such as "GET \/admin\/stats"\)/
  }])
})

t.test('every route described: no warning', async (t) => {
  const logs = logCollector()
  await readyApp(t, {}, (app) => {
    app.get('/health', { schema: { description: 'Liveness' }, svc: {} }, async () => ({}))
  }, { logger: { level: 'warn', stream: logs.stream } })
  t.same(logs.lines, [])
})

t.test('requireDescriptions: true makes each missing description an error, all in one rejection', async (t) => {
  const logs = logCollector()
  const error = await readyApp(t, { requireDescriptions: true, names: { style: 'rest' } }, undocumentedRoutes, { logger: { level: 'warn', stream: logs.stream } }).then(() => undefined, (error: unknown) => error)
  t.match(error, {
    code: 'FST_SVC_INVALID_ROUTES',
    errors: [
      { code: 'FST_SVC_MISSING_DESCRIPTION', message: 'Missing description: route GET /roles (svc.description) needs a non-empty "description" string. Set svc.description, or give the route schema a description or summary.' },
      { code: 'FST_SVC_MISSING_DESCRIPTION', message: /route GET \/roles\/:id / },
      { code: 'FST_SVC_MISSING_DESCRIPTION', message: /route POST \/roles / }
    ]
  })
  t.equal((error as { errors: unknown[] }).errors.length, 3, 'the HEAD twin of a GET is not a second problem')
  t.same(logs.lines.filter((line) => line.derivedDescriptions !== undefined), [], 'an error, not also a warning')
})

t.test('requireDescriptions must be a boolean', async (t) => {
  await t.rejects(readyApp(t, { requireDescriptions: 'yes' as never }), { code: 'FST_SVC_INVALID_OPTION', message: /"requireDescriptions" must be true or false; got "yes"/ })
})
