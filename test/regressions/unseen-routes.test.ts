import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

/**
 * Defect: a route tagged `auth: 'required'` that the plugin never saw answered 200 to anyone, and `ready()`
 * succeeded silently. The plugin cannot protect such a route; it now says so at `ready()` (`unseenRoutes`).
 */

const AUTH = { type: 'bearer', description: 'Token', verify: (token: string) => token === 'good' && { sub: 'a' } } as const

function adminRoute (app: FastifyInstance): void {
  app.get('/admin', { svc: { description: 'Admin data', auth: 'required' } }, async () => ({ secret: true }))
}

/** A Fastify app whose warnings land in `warnings`. */
function appWithLog (): { app: FastifyInstance, warnings: Array<Record<string, unknown>> } {
  const warnings: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      const entry = JSON.parse(String(chunk))
      if (entry.level === 40) warnings.push(entry)
      done()
    }
  })
  return { app: Fastify({ logger: { level: 'warn', stream } }), warnings }
}

function options (extra: Partial<SvcManifestOptions> = {}): SvcManifestOptions {
  return { ...requiredOptions, auth: AUTH, ...extra }
}

/** The three ways of the issue to register a route where the plugin cannot see it. */
const layouts: Array<[string, (app: FastifyInstance, extra?: Partial<SvcManifestOptions>) => Promise<void>]> = [
  ['routes plugin registered before the plugin', async (app, extra) => {
    await app.register(async (routes) => adminRoute(routes))
    await app.register(svcManifest, options(extra))
  }],
  ['register of the plugin not awaited, route added at once', async (app, extra) => {
    app.register(svcManifest, options(extra))
    adminRoute(app)
  }],
  ['plugin registered in a sibling context', async (app, extra) => {
    app.register(async (docs) => { await docs.register(svcManifest, options(extra)) })
    app.register(async (routes) => adminRoute(routes))
  }]
]

for (const [label, register] of layouts) {
  t.test(`${label}: 'warn' (the default) logs the route, naming it`, async (t) => {
    const { app, warnings } = appWithLog()
    await register(app)
    await app.ready()
    const warning = warnings.find((entry) => Array.isArray(entry.unseenRoutes))
    t.ok(warning, 'a warning is logged')
    t.match(warning?.msg, /GET, HEAD \/admin/)
    t.match(warning?.msg, /The manifest does not describe it, and its svc\.auth is not enforced/)
    t.same(warning?.unseenRoutes, ['GET, HEAD /admin'])
    // What the warning is about: the plugin cannot protect a route it never saw.
    t.equal((await app.inject('/admin')).statusCode, 200, 'the unseen route is not protected')
  })

  t.test(`${label}: 'error' rejects ready() with FST_SVC_UNSEEN_ROUTES naming the route`, async (t) => {
    const app = Fastify()
    await register(app, { unseenRoutes: 'error' }).catch(() => {})
    await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_UNSEEN_ROUTES', message: /1 route was registered .*GET, HEAD \/admin/ })
  })

  t.test(`${label}: 'ignore' says nothing`, async (t) => {
    const { app, warnings } = appWithLog()
    await register(app, { unseenRoutes: 'ignore' })
    await app.ready()
    t.same(warnings, [])
  })
}

t.test('the documented setup, plugin first at the root, sees every route: no warning', async (t) => {
  const { app, warnings } = appWithLog()
  await app.register(svcManifest, options({ unseenRoutes: 'error' }))
  adminRoute(app)
  await app.register(async (child) => {
    child.get('/:id', async () => ({}))
    child.get('/opt/:id?', async () => ({}))
    child.post('/files/*', async () => ({}))
  }, { prefix: '/nested' })
  await app.ready()
  t.same(warnings, [])
  t.equal((await app.inject('/admin')).statusCode, 401, 'and protects what it saw')
})

t.test('in an encapsulated context, the routes of that context are seen, whatever their shape', async (t) => {
  const app = Fastify({ ignoreTrailingSlash: true, caseSensitive: false })
  await app.register(async (api) => {
    await api.register(svcManifest, options({ unseenRoutes: 'error' }))
    adminRoute(api)
    api.get('/', async () => ({}))
    api.get('/Items/:id(^\\d+)/', async () => ({}))
    api.get('/items/:name', async () => ({}))
    api.get('/opt/:id?', async () => ({}))
    api.get('/files/*', async () => ({}))
    api.get('/at/12::30', async () => ({}))
    api.route({ method: ['GET', 'POST'], url: '/both', handler: async () => ({}) })
    api.get('/versioned', { constraints: { version: '1.0.0' } }, async () => ({}))
    api.get('/versioned', { constraints: { version: '2.0.0' } }, async () => ({}))
  }, { prefix: '/api' })
  await t.resolves(Promise.resolve(app.ready()), 'nothing unseen')
})

t.test('in an encapsulated context, only the routes outside it are named, many of them cut short', async (t) => {
  const app = Fastify()
  for (let index = 0; index < 25; index++) app.get(`/outside/${index}`, async () => ({}))
  await app.register(async (api) => {
    await api.register(svcManifest, options({ unseenRoutes: 'error' }))
    api.get('/inside', async () => ({}))
  })
  app.register(async (other) => other.post('/sibling/:id', async () => ({})))
  const error = await Promise.resolve(app.ready()).catch((caught: Error) => caught)
  t.match(error, { code: 'FST_SVC_UNSEEN_ROUTES', message: /^Routes the manifest does not describe: 26 routes were registered/ })
  t.match((error as Error).message, /GET, HEAD \/outside\/0; /)
  t.match((error as Error).message, /; and 6 more\./)
  t.notMatch((error as Error).message, /\/inside/)
})

t.test('the plugin first at the root, earlier routes are named, cut short past twenty', async (t) => {
  const app = Fastify()
  for (let index = 0; index < 21; index++) app.post(`/early/${index}`, async () => ({}))
  await app.register(svcManifest, options({ unseenRoutes: 'error' }))
  await t.rejects(Promise.resolve(app.ready()), { message: /21 routes were registered .*POST \/early\/0; .*; and 1 more\./ })
})

t.test('unseenRoutes takes only warn, error or ignore', async (t) => {
  const app = Fastify()
  app.register(svcManifest, options({ unseenRoutes: 'yes' as never }))
  await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_INVALID_OPTION', message: /"unseenRoutes" must be "warn", "error" or "ignore"; got "yes"/ })
})

t.test('an unprefixed context with a catch-all and an optional root param: only the sibling route is named', async (t) => {
  const app = Fastify()
  await app.register(async (api) => {
    await api.register(svcManifest, options({ unseenRoutes: 'error' }))
    api.get('*', async () => ({}))
    api.get('/:lang?', async () => ({}))
    api.post('/x', async () => ({}))
  })
  app.register(async (other) => other.get('/outside', async () => ({})))
  const error = await Promise.resolve(app.ready()).catch((caught: Error) => caught)
  t.match(error, { code: 'FST_SVC_UNSEEN_ROUTES' })
  t.match((error as Error).message, /1 route was registered .*: GET, HEAD \/outside\. /)
})
