import { Type } from '@sinclair/typebox'
import t from 'tap'
import { placesOf } from '../../lib/catalog.js'
import { buildManifest } from '../../lib/assemble/manifest.js'
import { RouteCollector } from '../../lib/collect/collector.js'
import { Declarations } from '../../lib/collect/declarations.js'
import { readOptions } from '../../lib/options.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/** Path params are always params of the command, first, required (DESIGN §3). */

t.test('a route with svc.params and :id in its URL lists id first, as a required string', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/carts/:id/items', { svc: { description: 'Add an item', params: Type.Object({ sku: Type.String(), quantity: Type.Optional(Type.Integer({ default: 1 })) }) } }, async (request) => ({ params: request.params, body: request.body }))
  })
  const params = (await fetchManifest(app)).commands['carts.items'].params ?? {}
  t.same(Object.keys(params), ['id', 'sku', 'quantity'])
  t.same(params.id, { type: 'string', required: true })
  t.same(params.quantity, { type: 'number', required: false, default: 1 })
  const response = await app.inject({ method: 'POST', url: '/carts/c1/items', payload: { sku: 'a' } })
  t.same(response.json(), { params: { id: 'c1' }, body: { sku: 'a', quantity: 1 } }, 'the route works as described')
})

t.test('a route without any schema still lists its path params', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/users/:userId/orders/:orderId', { svc: { description: 'One order' } }, async () => ({}))
    app.get('/range/:from-:to', { svc: { name: 'range', description: 'A range' } }, async () => ({}))
    app.get('/files/:name.:ext', { svc: { name: 'file', description: 'A file' } }, async () => ({}))
    app.get('/regexp/:id(^\\d+)', { svc: { name: 'regexp', description: 'Digits' } }, async () => ({}))
    app.get('/literal::colon/:x', { svc: { name: 'literal', description: 'Colon' } }, async () => ({}))
    app.get('/static/*', { svc: { name: 'wildcard', description: 'The rest of the path' } }, async (request) => request.params)
  }))
  t.same(manifest.commands['users.orders'].params, { userId: { type: 'string', required: true }, orderId: { type: 'string', required: true } })
  t.same(Object.keys(manifest.commands.range.params ?? {}), ['from', 'to'])
  t.same(Object.keys(manifest.commands.file.params ?? {}), ['name', 'ext'])
  t.same(Object.keys(manifest.commands.regexp.params ?? {}), ['id'])
  t.same(Object.keys(manifest.commands.literal.params ?? {}), ['x'])
  t.same(manifest.commands.wildcard.params, { '*': { type: 'string', required: true } }, 'the wildcard is the param "*", as Fastify names it')
})

t.test('a last optional param (:id?) is required only when its schema says so', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/reports/:year?', { svc: { description: 'Reports' } }, async () => ({}))
    app.get('/typed/:page?', { schema: { params: Type.Object({ page: Type.Optional(Type.Integer()) }) }, svc: { description: 'Typed' } }, async () => ({}))
    app.get('/strict/:page?', { schema: { params: Type.Object({ page: Type.Integer() }) }, svc: { description: 'Strict' } }, async () => ({}))
  })
  const manifest = await fetchManifest(app)
  t.same(manifest.commands.reports.params, { year: { type: 'string', required: false } })
  t.same(manifest.commands.typed.params, { page: { type: 'number', required: false } })
  t.same(manifest.commands.strict.params, { page: { type: 'number', required: true } })
  t.equal((await app.inject('/reports')).statusCode, 200, 'the route answers without it')
  t.equal((await app.inject('/strict')).statusCode, 400, 'unless its schema requires it')
})

t.test('schema.params gives the types; URL params it leaves out follow as strings', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/carts/:id/items/:sku', { schema: { params: Type.Object({ id: Type.Integer({ description: 'Cart id' }) }), querystring: Type.Object({ full: Type.Optional(Type.Boolean()) }) }, svc: { description: 'One item' } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands['carts.items'].params ?? {}), ['id', 'sku', 'full'])
  t.same(manifest.commands['carts.items'].params, {
    id: { type: 'number', required: true, description: 'Cart id' },
    sku: { type: 'string', required: true },
    full: { type: 'boolean', required: false }
  })
})

t.test('a path param with a default is still required: the URL carries it', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/pages/:n', { schema: { params: Type.Object({ n: Type.Integer({ default: 1 }) }) }, svc: { description: 'Page' } }, async () => ({}))
  }))
  t.same(manifest.commands.pages.params, { n: { type: 'number', required: true, default: 1 } })
})

t.test('svc.params that repeat a path param are refused: a caller could not tell where it goes', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.put('/carts/:id', { svc: { description: 'Replace', params: Type.Object({ id: Type.String(), items: Type.Array(Type.String()) }) } }, async () => ({}))
  }), { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /param "id" is in PUT \/carts\/:id URL and in PUT \/carts\/:id svc\.params/ })
})

t.test('the catalog knows every path param\'s place, so the invocation endpoints can fill the URL', async (t) => {
  const declarations = new Declarations(readOptions({ ...requiredOptions }), () => {}, { requireOpen: () => {} })
  const collector = new RouteCollector(declarations, () => {})
  collector.onRoute({ method: 'POST', url: '/carts/:id/items', svc: { description: 'Add', params: Type.Object({ sku: Type.String() }) }, handler: async () => ({}) } as never)
  collector.onRoute({ method: 'GET', url: '/carts/:id/items/:sku', schema: { params: Type.Object({ id: Type.String() }), querystring: Type.Object({ full: Type.Boolean() }) }, svc: { name: 'item', description: 'Item' }, handler: async () => ({}) } as never)
  t.same(collector.errors, [])
  const { routes } = buildManifest(readOptions({ ...requiredOptions }), declarations, collector.commands)
  const byName = Object.fromEntries(routes.map((route) => [route.name, route]))
  t.same({ ...placesOf(byName['carts.items']) }, { id: 'path', sku: 'body' })
  t.same({ ...placesOf(byName.item) }, { id: 'path', sku: 'path', full: 'query' })
  t.same(byName.item.paramSchemas.map(({ place }) => place), ['path', 'path', 'query'], 'path params first, each schema as the route validates it')
})
