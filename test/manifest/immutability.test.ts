import { Type } from '@sinclair/typebox'
import * as TypeBox1 from 'typebox'
import t from 'tap'
import { readyApp } from '../helpers/app.js'

/** Every schema a user hands to the plugin, built fresh for one run. */
function schemas () {
  return {
    product: Type.Object({ sku: Type.String(), price: Type.Number({ default: 0 }) }, { $id: 'urn:shop:product' }),
    sku: Type.String({ description: 'SKU' }),
    eventData: Type.Object({ items: Type.Array(Type.Ref('Product')), total: Type.Integer() }),
    searchParams: Type.Object({ q: Type.String(), tags: Type.Optional(Type.Array(Type.String(), { default: ['new'] })) }),
    addParams: Type.Object({ sku: Type.Ref('Sku'), quantity: Type.Optional(Type.Integer({ default: 1 })) }),
    returns: Type.Array(Type.Ref('Product')),
    routeSchema: {
      params: Type.Object({ id: Type.String() }),
      querystring: Type.Object({ verbose: Type.Optional(Type.Boolean({ default: false })) }),
      body: Type.Object({ quantity: Type.Integer({ default: 1 }) }),
      response: { 200: Type.Object({ id: Type.String(), quantity: Type.Number() }), 404: Type.Object({ message: Type.String() }) }
    },
    pathOnlySchema: { params: Type.Object({ id: Type.String() }) },
    typebox1: TypeBox1.Type.Object({ note: TypeBox1.Type.Optional(TypeBox1.Type.String({ default: 'none' })) })
  }
}

/**
 * JSON and structured-clone snapshots: the first sees key order, the second keys JSON drops (undefined
 * values). Both leave out TypeBox's symbol keys, which Fastify's own compilers read and the plugin never touches.
 */
function snapshot (value: unknown): { json: string, clone: unknown } {
  return { json: JSON.stringify(value), clone: structuredClone(value) }
}

t.test('schemas passed in are unchanged by registration, ready() and requests', async (t) => {
  const given = schemas()
  const before = snapshot(given)
  const svcObjects = {
    search: { description: 'Search', params: given.searchParams, returns: given.returns, tags: ['catalog'], hints: { idempotent: true } },
    add: { description: 'Add', params: given.addParams },
    addToCart: { name: 'cart.add', description: 'Add to a cart', params: given.addParams },
    update: { description: 'Update' },
    note: { description: 'Note', params: given.typebox1 }
  }
  const svcBefore = snapshot(svcObjects)
  const app = await readyApp(t, {
    types: { Product: given.product, Sku: given.sku },
    events: { 'cart.updated': { description: 'Cart changed', data: given.eventData } }
  }, (app) => {
    app.get('/search', { svc: svcObjects.search }, async () => [])
    app.post('/cart/items', { svc: svcObjects.add }, async (request) => request.body)
    app.put('/carts/:id/items', { schema: given.routeSchema, svc: svcObjects.update }, async (request) => ({ id: (request.params as { id: string }).id, quantity: 1 }))
    app.patch('/notes', { svc: svcObjects.note }, async (request) => request.body)
    app.post('/carts/:id/items', { schema: given.pathOnlySchema, svc: svcObjects.addToCart }, async (request) => request.body)
  })
  t.equal(JSON.stringify(given), before.json, 'unchanged after ready()')
  t.strictSame(structuredClone(given), before.clone, 'no key added, not even an undefined one')

  await app.inject({ method: 'GET', url: '/search?q=a' })
  await app.inject({ method: 'HEAD', url: '/search?q=a' })
  await app.inject({ method: 'GET', url: '/search' })
  await app.inject({ method: 'POST', url: '/cart/items', payload: { sku: 'a' } })
  await app.inject({ method: 'POST', url: '/cart/items', payload: { quantity: 'x' } })
  await app.inject({ method: 'PUT', url: '/carts/1/items?verbose=true', payload: {} })
  await app.inject({ method: 'PATCH', url: '/notes', payload: {} })
  await app.inject({ method: 'POST', url: '/carts/1/items', payload: { sku: 'a' } })
  await app.inject({ method: 'GET', url: '/.well-known/svc.json' })

  t.equal(JSON.stringify(given), before.json, 'unchanged after requests')
  t.strictSame(structuredClone(given), before.clone)
  t.equal(JSON.stringify(svcObjects), svcBefore.json, 'the svc route options are unchanged')
})

t.test('the served defaults are copies: changing the manifest cannot reach the schema', async (t) => {
  const tags = Type.Array(Type.String(), { default: ['new'] })
  const app = await readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search', params: Type.Object({ tags: Type.Optional(tags) }) } }, async () => [])
  })
  const served = app.svc.manifest.commands.search.params?.tags.default
  t.same(served, ['new'])
  t.not(served, tags.default, 'not the same array')
  t.ok(Object.isFrozen(served))
  t.notOk(Object.isFrozen(tags.default), 'the schema\'s own default is not frozen')
})

t.test('schemas reused by two apps give the same manifests', async (t) => {
  const given = schemas()
  const build = () => readyApp(t, { types: { Product: given.product, Sku: given.sku } }, (app) => {
    app.post('/cart/items', { svc: { description: 'Add', params: given.addParams, returns: given.returns } }, async () => [])
  })
  const one = await build()
  const two = await build()
  t.same(two.svc.manifest.commands, one.svc.manifest.commands)
  t.same(two.svc.manifest.types, one.svc.manifest.types)
})
