import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

t.test('the four required options are served as given, in layout 1.0 by default', async (t) => {
  const app = await readyApp(t)
  const manifest = await fetchManifest(app)
  t.equal(manifest.svc, '1.0')
  t.equal(manifest.name, requiredOptions.name)
  t.equal(manifest.description, requiredOptions.description)
  t.equal(manifest.version, requiredOptions.version)
  t.equal(manifest.baseUrl, requiredOptions.baseUrl)
  t.notOk('about' in manifest, 'no about in layout 1.0')
  t.notOk('channels' in manifest, 'no channels in layout 1.0')
  t.notOk('auth' in manifest, 'no auth unless configured')
})

t.test('svc: "1.0" given explicitly is the same layout as the default', async (t) => {
  const app = await readyApp(t, { svc: '1.0' })
  t.equal((await fetchManifest(app)).svc, '1.0')
})

t.test('svc: "0.5.0" selects the older layout, with about and channels', async (t) => {
  const app = await readyApp(t, {
    svc: '0.5.0',
    about: 'Friendly tone; sells books.',
    channels: { cart: { description: 'Real-time cart state' } }
  })
  const manifest = await fetchManifest(app)
  t.equal(manifest.svc, '0.5.0')
  t.equal(manifest.about, 'Friendly tone; sells books.')
  t.same(manifest.channels, { cart: { description: 'Real-time cart state' } })
})

t.test('a plain http baseUrl is accepted', async (t) => {
  const app = await readyApp(t, { baseUrl: 'http://localhost:3000/api' })
  t.equal((await fetchManifest(app)).baseUrl, 'http://localhost:3000/api')
})

t.test('the manifest is served at /.well-known/svc.json with max-age=300 by default', async (t) => {
  const app = await readyApp(t)
  const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['cache-control'], 'public, max-age=300')
})

t.test('path moves the manifest', async (t) => {
  const app = await readyApp(t, { path: '/meta/manifest.json' })
  t.equal((await app.inject({ method: 'GET', url: '/meta/manifest.json' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/svc.json' })).statusCode, 404)
})

t.test('maxAge sets the Cache-Control lifetime, 0 included', async (t) => {
  for (const maxAge of [0, 60, 86400]) {
    const app = await readyApp(t, { maxAge })
    const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
    t.equal(response.headers['cache-control'], `public, max-age=${maxAge}`)
  }
})

t.test('auth is served with type and description only', async (t) => {
  const verify = async () => ({ sub: 'user' })
  const app = await readyApp(t, { auth: { type: 'bearer', description: 'JWT bearer token', verify } })
  const manifest = await fetchManifest(app)
  t.same(manifest.auth, { type: 'bearer', description: 'JWT bearer token' })
  t.same(Object.keys(manifest.auth ?? {}), ['type', 'description'], 'verify is not served')
})

t.test('types, events and channels may be given as options', async (t) => {
  const app = await readyApp(t, {
    svc: '0.5.0',
    types: { Product: { type: 'object', properties: { sku: { type: 'string' } } } },
    events: { 'cart.updated': { description: 'Cart contents changed' } },
    channels: { cart: { description: 'Real-time cart state' } }
  })
  const manifest = await fetchManifest(app)
  t.same(manifest.types, { Product: { type: 'object', properties: { sku: { type: 'string', required: false } } } })
  t.same(manifest.events, { 'cart.updated': { description: 'Cart contents changed' } })
  t.same(manifest.channels, { cart: { description: 'Real-time cart state' } })
})

t.test('register options that Fastify itself reads are accepted', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, logLevel: 'warn' })
  await app.ready()
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/svc.json' })).statusCode, 200)
})

t.test('logLevel applies to the manifest route only', async (t) => {
  const lines: string[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  await app.register(svcManifest, { ...requiredOptions, logLevel: 'silent', logSerializers: {} })
  app.get('/ping', async () => 'pong')
  await app.ready()
  await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  t.same(lines.filter((line) => line.includes('incoming request')), [], 'the manifest request is not logged')
  await app.inject({ method: 'GET', url: '/ping' })
  t.equal(lines.filter((line) => line.includes('incoming request')).length, 1, 'other routes keep the app level')
})

t.test('bad log options are refused', async (t) => {
  await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, logLevel: 3 } as never) }, { code: 'FST_SVC_INVALID_OPTION', message: /"logLevel"/ })
  await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, logSerializers: 'req' } as never) }, { code: 'FST_SVC_INVALID_OPTION', message: /"logSerializers"/ })
})

t.test('prefix is refused: Fastify ignores it for this plugin, and path or a prefixed parent does the job', async (t) => {
  await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, prefix: '/api' }) }, {
    code: 'FST_SVC_INVALID_OPTION',
    message: /"prefix" has no effect.*path: '\/api\/\.well-known\/svc\.json'/
  })
})

t.test('registered inside a prefixed plugin, the manifest is served under the prefix and lists that plugin\'s routes', async (t) => {
  const app = Fastify()
  app.get('/outside', { svc: { description: 'Not seen' } }, async () => ({}))
  await app.register(async (api) => {
    await api.register(svcManifest, requiredOptions)
    api.get('/items', { svc: { description: 'Items' } }, async () => [])
  }, { prefix: '/api' })
  await app.ready()
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/svc.json' })).statusCode, 404)
  const manifest = await fetchManifest(app, '/api/.well-known/svc.json')
  t.same(Object.keys(manifest.commands), ['api.items'])
})

t.test('the options object passed in is not changed', async (t) => {
  const options = { ...requiredOptions, svc: '0.5.0' as const, maxAge: 10, events: { 'a.b': { description: 'A' } } }
  const before = JSON.stringify(options)
  await readyApp(t, options)
  t.equal(JSON.stringify(options), before)
})

t.test('options may be given as a function of the parent instance, as Fastify allows', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, () => ({ ...requiredOptions, maxAge: 5 }))
  await app.ready()
  const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  t.equal(response.headers['cache-control'], 'public, max-age=5')
})
