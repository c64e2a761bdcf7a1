import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'
import { tokenAuth } from '../helpers/auth.js'

/** The manifest of an app with the plugin, @fastify/rate-limit registered with `global`, then `routes`. */
async function manifestOf (t: Parameters<typeof readyApp>[0], routes: (app: FastifyInstance) => void, global: Record<string, unknown> = { global: false }) {
  const app = await readyApp(t, { auth: tokenAuth }, async (app) => {
    await app.register(rateLimit, global)
    routes(app)
  })
  return { app, manifest: await fetchManifest(app) }
}

t.test('a route\'s @fastify/rate-limit config is its command\'s rateLimit, read as the plugin reads it', async (t) => {
  const { app, manifest } = await manifestOf(t, (app) => {
    app.post('/login', { svc: { description: 'Log in', auth: 'optional', scopes: ['session'] }, config: { rateLimit: { max: 3, timeWindow: '1 minute' } } }, async () => ({ ok: true }))
    app.get('/search', { svc: { description: 'Search' }, config: { rateLimit: { max: 10.9, timeWindow: 1500.7 } } }, async () => [])
    app.get('/tea', { svc: { description: 'Tea' }, config: { rateLimit: { max: 5, timeWindow: '2 hours' } } }, async () => [])
  })
  t.same(manifest.commands.login.rateLimit, { maxRequests: 3, windowMs: 60_000 })
  t.same(manifest.commands.search.rateLimit, { maxRequests: 10, windowMs: 1500 })
  t.same(manifest.commands.tea.rateLimit, { maxRequests: 5, windowMs: 7_200_000 })
  t.same(Object.keys(manifest.commands.login), ['description', 'auth', 'requiredScopes', 'rateLimit'], 'after requiredScopes')
  // What the manifest says is what the plugin applies: the fourth call within the minute is refused.
  const codes = []
  for (let call = 0; call < 4; call++) codes.push((await app.inject({ method: 'POST', url: '/login' })).statusCode)
  t.same(codes, [200, 200, 200, 429])
})

t.test('no rateLimit when the limit depends on the request, is switched off, or is not the route\'s own', async (t) => {
  const { manifest } = await manifestOf(t, (app) => {
    app.get('/per-user', { svc: { description: 'Per user' }, config: { rateLimit: { max: () => 5, timeWindow: 1000 } } }, async () => [])
    app.get('/per-window', { svc: { description: 'Per window' }, config: { rateLimit: { max: 5, timeWindow: () => 1000 } } }, async () => [])
    app.get('/off', { svc: { description: 'Off' }, config: { rateLimit: false } }, async () => [])
    app.get('/half', { svc: { description: 'Max only: the window is the registration\'s' }, config: { rateLimit: { max: 5 } } }, async () => [])
    app.get('/unreadable', { svc: { description: 'A window the parser does not read' }, config: { rateLimit: { max: 5, timeWindow: 'soon' } } }, async () => [])
    app.get('/global', { svc: { description: 'Global only' } }, async () => [])
  }, { max: 100, timeWindow: '1 minute' })
  for (const name of ['per-user', 'per-window', 'off', 'half', 'unreadable', 'global']) {
    t.notOk(Object.hasOwn(manifest.commands[name], 'rateLimit'), name)
  }
})

t.test('a route config outside the scope where @fastify/rate-limit is registered limits nothing, and says nothing', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(async (scoped) => {
      await scoped.register(rateLimit, { global: false })
      scoped.get('/inside', { svc: { description: 'Inside' }, config: { rateLimit: { max: 2, timeWindow: 1000 } } }, async () => [])
    })
    app.get('/outside', { svc: { description: 'Outside' }, config: { rateLimit: { max: 2, timeWindow: 1000 } } }, async () => [])
  })
  const manifest = await fetchManifest(app)
  t.same(manifest.commands.inside.rateLimit, { maxRequests: 2, windowMs: 1000 })
  t.notOk(Object.hasOwn(manifest.commands.outside, 'rateLimit'))
})

t.test('svc.rateLimit declares a limit, and wins over the route config', async (t) => {
  const { manifest } = await manifestOf(t, (app) => {
    app.get('/declared', { svc: { description: 'Declared', rateLimit: { windowMs: 60_000, maxRequests: 100 } } }, async () => [])
    app.get('/overridden', { svc: { description: 'Overridden', rateLimit: { maxRequests: 0, windowMs: 1 } }, config: { rateLimit: { max: 5, timeWindow: 1000 } } }, async () => [])
  })
  t.same(manifest.commands.declared.rateLimit, { maxRequests: 100, windowMs: 60_000 })
  t.same(Object.keys(manifest.commands.declared.rateLimit!), ['maxRequests', 'windowMs'])
  t.same(manifest.commands.overridden.rateLimit, { maxRequests: 0, windowMs: 1 })
})

t.test('a bad svc.rateLimit is refused at ready(), naming the route and the field', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [5, /route GET \/x: svc\.rateLimit must be \{ maxRequests, windowMs \}/],
    [{ maxRequests: 5, windowMs: 1000, keyBy: 'ip' }, /svc\.rateLimit\.keyBy must be absent/],
    [{ maxRequests: -1, windowMs: 1000 }, /svc\.rateLimit\.maxRequests must be a whole number of requests, 0 or more; got -1/],
    [{ maxRequests: 1.5, windowMs: 1000 }, /svc\.rateLimit\.maxRequests/],
    [{ maxRequests: 5 }, /svc\.rateLimit\.windowMs must be a whole number of milliseconds, 1 or more; got /],
    [{ maxRequests: 5, windowMs: 0 }, /svc\.rateLimit\.windowMs/]
  ]
  for (const [value, message] of cases) {
    const app = Fastify()
    await app.register(svcManifest, requiredOptions)
    app.get('/x', { svc: { description: 'X', rateLimit: value as never } }, async () => [])
    await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message }, JSON.stringify(value))
    await app.close()
  }
})
