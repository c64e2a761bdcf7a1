import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { addCartItemCommand, fetchManifest, readyApp } from '../helpers/app.js'

const verify = async () => ({ sub: 'user' })

/** Options that fill every manifest field of the given layout. */
function everyField (svc: '1.0' | '0.5.0'): Partial<SvcManifestOptions> {
  return {
    svc,
    ...(svc === '0.5.0' && { about: 'Editorial tone: friendly.', channels: { cart: { description: 'Real-time cart state' } } }),
    auth: { type: 'bearer', description: 'JWT bearer token', verify },
    types: { Product: Type.Object({ sku: Type.String(), price: Type.Number() }) },
    events: { 'cart.updated': { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) } }
  }
}

const TOP_1_0 = ['svc', 'name', 'description', 'version', 'baseUrl', 'auth', 'commands', 'events', 'types', 'checksum', 'updatedAt']
const TOP_0_5 = ['svc', 'name', 'description', 'about', 'version', 'baseUrl', 'auth', 'commands', 'events', 'channels', 'types', 'checksum', 'updatedAt']

for (const [layout, keys] of [['1.0', TOP_1_0], ['0.5.0', TOP_0_5]] as const) {
  t.test(`layout ${layout}: every field, in the spec's order`, async (t) => {
    const app = await readyApp(t, everyField(layout), addCartItemCommand)
    const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
    const manifest = response.json()
    t.same(Object.keys(manifest), keys)
    t.same(manifest.auth, { type: 'bearer', description: 'JWT bearer token' })
    t.same(Object.keys(manifest.auth), ['type', 'description'])

    const command = manifest.commands['cart.items']
    t.same(Object.keys(command), ['description', 'params', 'returns', 'tags', 'hints', 'auth'])
    t.same(command, {
      description: 'Add an item to the cart',
      params: {
        quantity: { type: 'number', required: false, default: 1 },
        sku: { type: 'string', required: true, description: 'Product SKU' }
      },
      returns: { type: 'Product' },
      tags: ['cart'],
      hints: { idempotent: false, sideEffects: true },
      auth: 'required'
    })
    t.same(Object.keys(command.params.quantity), ['type', 'required', 'default'])
    t.same(Object.keys(command.params.sku), ['type', 'required', 'description'])

    t.same(manifest.events, { 'cart.updated': { description: 'Cart contents changed', data: { items: { type: 'array', required: true, items: { type: 'string' } } } } })
    t.same(Object.keys(manifest.events['cart.updated']), ['description', 'data'])
    t.same(manifest.types, { Product: { type: 'object', properties: { sku: { type: 'string', required: true }, price: { type: 'number', required: true } } } })
    t.same(Object.keys(manifest.types.Product), ['type', 'properties'])
    if (layout === '0.5.0') {
      t.equal(manifest.about, 'Editorial tone: friendly.')
      t.same(manifest.channels, { cart: { description: 'Real-time cart state' } })
    }
  })
}

t.test('commands, events and types are always there; channels always in 0.5.0', async (t) => {
  const bare = await fetchManifest(await readyApp(t))
  t.same(bare.commands, {})
  t.same(bare.events, {})
  t.same(bare.types, {})
  t.same(Object.keys(bare), ['svc', 'name', 'description', 'version', 'baseUrl', 'commands', 'events', 'types', 'checksum', 'updatedAt'])

  const old = await fetchManifest(await readyApp(t, { svc: '0.5.0' }))
  t.same(old.channels, {})
  t.notOk('about' in old, 'about only when configured')
  t.same(Object.keys(old), ['svc', 'name', 'description', 'version', 'baseUrl', 'commands', 'events', 'channels', 'types', 'checksum', 'updatedAt'])
})

t.test('a command with a description only has nothing else', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/ping', { svc: { description: 'Liveness' } }, async () => 'pong')
  }))
  t.same(manifest.commands, { ping: { description: 'Liveness' } })
})

t.test('hints keep only what was given, idempotent before sideEffects', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/a', { svc: { description: 'A', hints: { sideEffects: false, idempotent: true } } }, async () => 'a')
    app.get('/b', { svc: { description: 'B', hints: { sideEffects: true } } }, async () => 'b')
    app.get('/c', { svc: { description: 'C', hints: {} } }, async () => 'c')
  }))
  t.same(Object.keys(manifest.commands.a.hints ?? {}), ['idempotent', 'sideEffects'])
  t.same(manifest.commands.b.hints, { sideEffects: true })
  t.same(manifest.commands.c.hints, {})
})

t.test('type and event descriptions carried by schemas are served', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {
    types: {
      Sku: Type.String({ description: 'Stock keeping unit' }),
      Product: Type.Object({ sku: Type.String({ description: 'The SKU' }) }, { description: 'A product' })
    },
    events: { 'stock.low': { description: 'Stock is low', data: Type.Object({ left: Type.Integer({ description: 'Units left' }) }) } }
  }))
  t.same(manifest.types.Sku, { type: 'string', description: 'Stock keeping unit' })
  t.same(manifest.types.Product, { type: 'object', description: 'A product', properties: { sku: { type: 'string', required: true, description: 'The SKU' } } })
  t.same(Object.keys(manifest.types.Product), ['type', 'description', 'properties'])
  t.same(manifest.events['stock.low'].data, { left: { type: 'number', required: true, description: 'Units left' } })
})

/** One app, declared in the given order, for the byte-identity check. */
async function shop (t: Test, reversed: boolean): Promise<string> {
  const types = [['Product', Type.Object({ sku: Type.String(), price: Type.Number() })], ['Cart', Type.Object({ items: Type.Array(Type.Ref('Product')) })]] as const
  const events = [['cart.updated', { description: 'Cart changed', data: Type.Object({ total: Type.Number(), items: Type.Array(Type.String()) }) }], ['order.placed', { description: 'Order placed' }]] as const
  const channels = [['cart', { description: 'Cart state' }], ['orders', { description: 'Order state' }]] as const
  const order = <T>(list: readonly T[]): T[] => (reversed ? [...list].reverse() : [...list])
  const app = await readyApp(t, { svc: '0.5.0', about: 'Books.' }, (app) => {
    for (const [name, schema] of order(types)) app.svc.type(name, schema)
    for (const [name, event] of order(events)) app.svc.event(name, event)
    for (const [name, channel] of order(channels)) app.svc.channel(name, channel)
    const routes = [
      () => app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Number({ default: 10 })) }), returns: Type.Array(Type.Ref('Product')), hints: { sideEffects: false, idempotent: true } } }, async () => []),
      () => app.post('/cart/items', { svc: { description: 'Add', params: Type.Object({ sku: Type.String(), quantity: Type.Integer() }), returns: Type.Ref('Cart'), tags: ['cart', 'write'] } }, async () => ({})),
      () => app.get('/carts/:id', { schema: { params: Type.Object({ id: Type.String() }) }, svc: { description: 'Get a cart' } }, async () => ({}))
    ]
    for (const add of order(routes)) add()
  })
  const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  return response.body
}

t.test('two apps declaring the same things in another order serve the same bytes but updatedAt', async (t) => {
  const first = await shop(t, false)
  const second = await shop(t, true)
  const withoutTime = (body: string) => body.replace(/"updatedAt":"[^"]*"/, '"updatedAt":""')
  t.equal(withoutTime(first), withoutTime(second))
  t.same(Object.keys(JSON.parse(first).commands), ['cart.items', 'carts', 'search'])
  t.same(Object.keys(JSON.parse(first).types), ['Cart', 'Product'])
  t.same(Object.keys(JSON.parse(first).events), ['cart.updated', 'order.placed'])
  t.same(Object.keys(JSON.parse(first).channels), ['cart', 'orders'])
  t.same(Object.keys(JSON.parse(first).events['cart.updated'].data), ['total', 'items'], 'event data in its schema\'s order')
  t.same(Object.keys(JSON.parse(first).types.Product.properties), ['sku', 'price'], 'type properties in their schema\'s order')
  t.same(Object.keys(JSON.parse(first).commands.search.params), ['q', 'limit'], 'params in their schema\'s order')
})

t.test('names are sorted in code-unit order (uppercase before lowercase)', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    for (const name of ['beta', 'Zeta', 'alpha', 'alpha.b', 'alpha-b']) {
      app.get(`/${name}`, { svc: { name, description: name } }, async () => name)
    }
  }))
  t.same(Object.keys(manifest.commands), ['Zeta', 'alpha', 'alpha-b', 'alpha.b', 'beta'])
})

t.test('updatedAt is the build time as Date#toISOString() (UTC, milliseconds)', async (t) => {
  const before = Date.now()
  const app = await readyApp(t)
  const after = Date.now()
  const { updatedAt } = await fetchManifest(app)
  t.match(updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  t.equal(new Date(updatedAt).toISOString(), updatedAt)
  const time = Date.parse(updatedAt)
  t.ok(time >= before && time <= after, 'built while the app got ready')
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal((await fetchManifest(app)).updatedAt, updatedAt, 'built once, not per request')
})

t.test('the body is the app.svc.manifest object as JSON', async (t) => {
  const app = await readyApp(t, {}, pingRoute)
  const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  t.equal(response.body, JSON.stringify(app.svc.manifest))
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
})

function pingRoute (app: FastifyInstance): void {
  app.get('/ping', { svc: { description: 'Liveness', tags: ['ops'] } }, async () => 'pong')
}
