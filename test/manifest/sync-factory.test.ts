import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { fetchManifest, requiredOptions } from '../helpers/app.js'
import { logCollector } from '../helpers/process.js'

/**
 * Apps built by a synchronous factory, as many are (`export function buildApp () { … return app }`, for
 * tests and for `fastify-cli`): it cannot `await app.register(svcManifest)`, so routes it adds at once
 * come before the plugin has hooked in.
 */
function usersRoutes (app: FastifyInstance): void {
  app.get('/users', { schema: { summary: 'Users' }, svc: {} }, async () => [])
  app.post('/users', { schema: { summary: 'Add a user' }, svc: { auth: 'required' } }, async () => ({}))
}

const OPTIONS = {
  ...requiredOptions,
  names: { style: 'rest' },
  auth: { type: 'bearer', description: 'Token', verify: (token: string) => token === 'good' && { sub: 'a' } }
} as const

function buildApp (serverOptions: FastifyServerOptions, options: Partial<SvcManifestOptions> = {}): FastifyInstance {
  const app = Fastify(serverOptions)
  app.register(svcManifest, { ...OPTIONS, ...options })
  usersRoutes(app)
  return app
}

/** The same factory, its routes moved into a plugin registered after fastify-svc-manifest. */
function buildFixedApp (serverOptions: FastifyServerOptions): FastifyInstance {
  const app = Fastify(serverOptions)
  app.register(svcManifest, OPTIONS)
  app.register(async (routes) => usersRoutes(routes))
  return app
}

const GUIDANCE = 'The manifest does not describe them, and their svc.auth is not enforced: an svc option on them is ignored. ' +
  'Either register the plugin before them, at the root of the app (await app.register(svcManifest, …)), or move them into a plugin ' +
  'registered after fastify-svc-manifest (app.register(async (app) => { … })), the only fix for a synchronous app factory that cannot ' +
  'await. Set unseenRoutes: \'ignore\' if they are meant to stay out of the manifest.'

t.test('a synchronous factory that adds its routes at once: the warning names them and gives both fixes', async (t) => {
  const logs = logCollector()
  const app = buildApp({ logger: { level: 'warn', stream: logs.stream } })
  t.teardown(() => app.close())
  await app.ready()
  const warnings = logs.lines.filter((line) => line.unseenRoutes !== undefined)
  t.equal(warnings.length, 1)
  t.same(warnings[0].unseenRoutes, ['GET, HEAD, POST /users'])
  t.equal(warnings[0].msg, '1 route was registered where fastify-svc-manifest cannot see it (before the plugin, or in a context beside it): ' +
    'GET, HEAD, POST /users. The manifest does not describe it, and its svc.auth is not enforced: an svc option on it is ignored. Either ' +
    'register the plugin before it, at the root of the app (await app.register(svcManifest, …)), or move it into a plugin registered after ' +
    'fastify-svc-manifest (app.register(async (app) => { … })), the only fix for a synchronous app factory that cannot await. ' +
    'Set unseenRoutes: \'ignore\' if it is meant to stay out of the manifest.')
  t.same(Object.keys((await fetchManifest(app)).commands), [], 'their svc options were ignored')
})

t.test('the same routes under unseenRoutes: \'error\': the rejection says the same', async (t) => {
  const app = buildApp({}, { unseenRoutes: 'error' })
  app.get('/roles', { svc: { description: 'Roles' } }, async () => [])
  t.teardown(() => app.close())
  await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_UNSEEN_ROUTES', message: `Routes the manifest does not describe: 2 routes were registered where fastify-svc-manifest cannot see them (before the plugin, or in a context beside it): GET, HEAD, POST /users; GET, HEAD /roles. ${GUIDANCE}` })
})

t.test('the fix for a synchronous factory: its routes in a plugin registered after fastify-svc-manifest', async (t) => {
  const logs = logCollector()
  const app = buildFixedApp({ logger: { level: 'warn', stream: logs.stream } })
  t.teardown(() => app.close())
  await app.ready()
  t.same(logs.lines, [], 'nothing to warn of')
  const { commands } = await fetchManifest(app)
  t.same(Object.keys(commands), ['users.create', 'users.list'])
  t.equal((await app.inject({ method: 'POST', url: '/users' })).statusCode, 401, 'svc.auth is enforced')
})
