import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/** `app.ready()` as a Promise: Fastify types it as a thenable instance, which t.rejects does not take. */
function ready (fastify: FastifyInstance): Promise<unknown> {
  return Promise.resolve(fastify.ready())
}

t.test('app.svc.type, app.svc.event and app.svc.channel add to the manifest', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { svc: '0.5.0' }, (app) => {
    app.svc.type('Product', Type.Object({ sku: Type.String(), price: Type.Number() }))
    app.svc.event('cart.updated', { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) })
    app.svc.event('cart.cleared', { description: 'Cart emptied' })
    app.svc.channel('cart', { description: 'Real-time cart state' })
  }))
  t.same(manifest.types, { Product: { type: 'object', properties: { sku: { type: 'string', required: true }, price: { type: 'number', required: true } } } })
  t.same(manifest.events, {
    'cart.cleared': { description: 'Cart emptied' },
    'cart.updated': { description: 'Cart contents changed', data: { items: { type: 'array', required: true, items: { type: 'string' } } } }
  })
  t.same(manifest.channels, { cart: { description: 'Real-time cart state' } })
})

t.test('plugins registered after the manifest plugin can use app.svc', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, async (app) => {
    await app.register(async (catalog) => {
      catalog.svc.type('Product', Type.Object({ sku: Type.String() }))
      catalog.svc.event('product.added', { description: 'New product', data: Type.Object({ product: Type.Ref('Product') }) })
      catalog.get('/products', { svc: { description: 'List', returns: Type.Array(Type.Ref('Product')) } }, async () => [])
    }, { prefix: '/catalog' })
  }))
  t.same(manifest.types.Product, { type: 'object', properties: { sku: { type: 'string', required: true } } })
  t.same(manifest.events['product.added'].data, { product: { type: 'Product', required: true } })
  t.same(manifest.commands['catalog.products'].returns, { type: 'array', items: { type: 'Product' } })
})

t.test('options and app.svc add to the same maps', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {
    svc: '0.5.0',
    types: { Sku: Type.String() },
    events: { 'order.placed': { description: 'Order placed' } },
    channels: { orders: { description: 'Orders' } }
  }, (app) => {
    app.svc.type('Product', Type.Object({ sku: Type.Ref('Sku') }))
    app.svc.event('cart.updated', { description: 'Cart changed' })
    app.svc.channel('cart', { description: 'Cart' })
  }))
  t.same(Object.keys(manifest.types), ['Product', 'Sku'])
  t.same(manifest.types.Product.properties, { sku: { type: 'Sku', required: true } })
  t.same(Object.keys(manifest.events), ['cart.updated', 'order.placed'])
  t.same(Object.keys(manifest.channels ?? {}), ['cart', 'orders'])
})

t.test('a registered type validates requests that refer to it', async (t) => {
  const app = await readyApp(t, { types: { Product: Type.Object({ sku: Type.String() }) } }, (app) => {
    app.post('/cart/items', { svc: { description: 'Add', params: Type.Object({ product: Type.Ref('Product') }) } }, async (request) => request.body)
  })
  t.equal((await app.inject({ method: 'POST', url: '/cart/items', payload: { product: { name: 'no sku' } } })).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/cart/items', payload: { product: { sku: 'a' } } })).statusCode, 200)
})

t.test('a schema the app already shared under a type name is kept', async (t) => {
  const app = Fastify()
  app.addSchema({ $id: 'Product', type: 'object', properties: { sku: { type: 'string', minLength: 3 } }, required: ['sku'] })
  await app.register(svcManifest, { ...requiredOptions, types: { Product: Type.Object({ sku: Type.String() }) } })
  app.post('/cart/items', { svc: { description: 'Add', params: Type.Object({ product: Type.Ref('Product') }) } }, async (request) => request.body)
  await app.ready()
  t.equal((await app.inject({ method: 'POST', url: '/cart/items', payload: { product: { sku: 'ab' } } })).statusCode, 400, 'the app\'s own schema validates')
  t.same((await fetchManifest(app)).types.Product, { type: 'object', properties: { sku: { type: 'string', required: true } } })
})

t.test('registering a name twice is a startup error', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0', types: { Product: Type.String() }, events: { 'a.b': { description: 'A' } }, channels: { c: { description: 'C' } } })
  t.throws(() => app.svc.type('Product', Type.Number()), { code: 'FST_SVC_DUPLICATE_NAME', message: /type "Product" is registered twice/ })
  t.throws(() => app.svc.event('a.b', { description: 'Again' }), { code: 'FST_SVC_DUPLICATE_NAME', message: /event "a\.b" is registered twice/ })
  t.throws(() => app.svc.channel('c', { description: 'Again' }), { code: 'FST_SVC_DUPLICATE_NAME', message: /channel "c" is registered twice/ })
})

t.test('bad definitions through app.svc are refused with the name', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0' })
  t.throws(() => app.svc.type('Product', 'string' as never), { code: 'FST_SVC_INVALID_OPTION', message: /type "Product" must be a JSON Schema object/ })
  t.throws(() => app.svc.event('a.b', null as never), { code: 'FST_SVC_INVALID_OPTION', message: /event "a\.b" must be an object/ })
  t.throws(() => app.svc.event('a.b', { description: 'A', data: [] as never }), { code: 'FST_SVC_INVALID_OPTION', message: /event "a\.b": "data" must be an object schema/ })
  t.throws(() => app.svc.event('a.b', { description: ' ' }), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /event "a\.b"/ })
  t.throws(() => app.svc.event('a.b', {} as never), { code: 'FST_SVC_MISSING_DESCRIPTION' })
  t.throws(() => app.svc.channel('c', 'x' as never), { code: 'FST_SVC_INVALID_OPTION', message: /channel "c" must be an object/ })
  t.throws(() => app.svc.channel('c', { description: '' }), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /channel "c"/ })
  await app.ready()
  t.same((await fetchManifest(app)).events, {}, 'nothing refused was registered')
})

t.test('calls after ready() throw FST_SVC_AFTER_READY', async (t) => {
  const app = await readyApp(t, { svc: '0.5.0' })
  t.throws(() => app.svc.type('Late', Type.String()), { code: 'FST_SVC_AFTER_READY', message: /app\.svc\.type\("Late"\) was called after ready\(\)/ })
  t.throws(() => app.svc.event('late.event', { description: 'Late' }), { code: 'FST_SVC_AFTER_READY', message: /app\.svc\.event\("late\.event"\)/ })
  t.throws(() => app.svc.channel('late', { description: 'Late' }), { code: 'FST_SVC_AFTER_READY', message: /app\.svc\.channel\("late"\)/ })
  const manifest = await fetchManifest(app)
  t.same([manifest.types, manifest.events, manifest.channels], [{}, {}, {}], 'the served manifest is unchanged')
})

t.test('declarations are refused once ready() has run, failed or not, and once the app has closed', async (t) => {
  const failed = Fastify()
  await failed.register(svcManifest, requiredOptions)
  failed.get('/:id', { svc: { description: 'Params only: no name' } }, async () => ({}))
  await t.rejects(ready(failed), { code: 'FST_SVC_NAME_NOT_DERIVABLE' })
  t.throws(() => failed.svc.type('Late', Type.String()), { code: 'FST_SVC_AFTER_READY', message: /app\.svc\.type\("Late"\) was called after ready\(\)/ })
  const closed = Fastify()
  await closed.register(svcManifest, requiredOptions)
  await closed.close()
  t.throws(() => closed.svc.event('late.event', { description: 'Late' }), { code: 'FST_SVC_CLOSED', message: 'The app is closing: app.svc.event("late.event") was called after app.close().' })
})

t.test('app.svc.manifest and app.svc.checksum throw FST_SVC_NOT_READY before ready()', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  t.throws(() => app.svc.manifest, { code: 'FST_SVC_NOT_READY', message: /after `await app\.ready\(\)`/ })
  t.throws(() => app.svc.checksum, { code: 'FST_SVC_NOT_READY' })
  await app.ready()
  t.equal(app.svc.manifest.name, 'Shop')
})

t.test('after a failed ready() the manifest stays unreadable', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/:id', { svc: { description: 'Params only: no name' } }, async () => ({}))
  await t.rejects(ready(app), { code: 'FST_SVC_NAME_NOT_DERIVABLE' })
  t.throws(() => app.svc.manifest, { code: 'FST_SVC_NOT_READY', message: 'The manifest is not built yet: app.svc.manifest is not available: ready() rejected, and its error says why.' })
})

t.test('app.svc.manifest is the served manifest, deeply frozen', async (t) => {
  const app = await readyApp(t, { types: { Product: Type.Object({ sku: Type.String() }) }, events: { 'a.b': { description: 'A', data: Type.Object({ x: Type.String() }) } } }, (app) => {
    app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }), tags: ['catalog'], hints: { idempotent: true } } }, async () => [])
  })
  const manifest = app.svc.manifest
  t.same(manifest, await fetchManifest(app))
  t.equal(app.svc.checksum, manifest.checksum)
  for (const value of [manifest, manifest.commands, manifest.commands.search, manifest.commands.search.params, manifest.commands.search.params?.q,
    manifest.commands.search.tags, manifest.commands.search.hints, manifest.events['a.b'].data, manifest.types.Product.properties]) {
    t.ok(Object.isFrozen(value))
  }
  t.throws(() => { (manifest as { name: string }).name = 'Other' }, TypeError)
  t.throws(() => { (manifest.commands.search.tags as string[]).push('x') }, TypeError)
  t.equal(JSON.parse((await app.inject('/.well-known/svc.json')).body).name, 'Shop')
})

t.test('each app has its own registry', async (t) => {
  const one = await readyApp(t, { types: { One: Type.String() } })
  const two = await readyApp(t, { types: { Two: Type.String() } })
  t.same(Object.keys(one.svc.manifest.types), ['One'])
  t.same(Object.keys(two.svc.manifest.types), ['Two'])
})
