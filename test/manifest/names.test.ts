import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/** `app.ready()` as a Promise: Fastify types it as a thenable instance, which t.rejects does not take. */
function ready (fastify: FastifyInstance): Promise<unknown> {
  return Promise.resolve(fastify.ready())
}

const derived: [string, string][] = [
  ['/cart/items', 'cart.items'],
  ['/carts/:id/items', 'carts.items'],
  ['/search', 'search'],
  ['/carts/:id', 'carts'],
  ['/users/:userId/orders/:orderId', 'users.orders'],
  ['/files/*', 'files'],
  ['/v1/cart-items/', 'v1.cart-items'],
  ['/api/user_profile', 'api.user_profile'],
  ['/users/:id(^\\d+)/posts', 'users.posts'],
  ['/tags/:tag(^(new|old)$)/items', 'tags.items'],
  ['/flights/:from-:to', 'flights'],
  ['/near/:lat-:lng/radius/:km', 'near.radius'],
  ['/files/:name.:ext', 'files'],
  ['/reports/report-:year', 'reports.report'],
  ['/archive/:year-summary', 'archive.summary']
]

for (const [url, name] of derived) {
  t.test(`${url} is command "${name}"`, async (t) => {
    const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
      app.get(url, { svc: { description: 'A command' } }, async () => ({}))
    }))
    t.same(Object.keys(manifest.commands), [name])
  })
}

t.test('the prefix of a plugin is part of the derived name', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, async (app) => {
    await app.register(async (api) => {
      api.get('/orders/:id', { svc: { description: 'An order' } }, async () => ({}))
    }, { prefix: '/shop' })
  }))
  t.same(Object.keys(manifest.commands), ['shop.orders'])
})

t.test('svc.name replaces the derived name', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/carts/:id', { svc: { name: 'cart.get', description: 'Get a cart' } }, async () => ({}))
    app.delete('/carts/:id', { svc: { name: 'cart.delete', description: 'Delete a cart' } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), ['cart.delete', 'cart.get'])
})

for (const url of ['/:id', '/:a/:b', '/*']) {
  t.test(`no name can be derived from ${url}: startup error naming the route`, async (t) => {
    await t.rejects(readyApp(t, {}, (app) => {
      app.get(url, { svc: { description: 'Root' } }, async () => ({}))
    }), { code: 'FST_SVC_NAME_NOT_DERIVABLE', message: new RegExp(`GET ${url.replace('*', '\\*')} gives no name.*svc\\.name`) })
  })
}

t.test('a derived name that breaks the name rule is a startup error', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/v1.2/items', { svc: { description: 'Items' } }, async () => ({}))
  }), { code: 'FST_SVC_NAME_NOT_DERIVABLE', message: /GET \/v1\.2\/items gives "v1\.2\.items", not a valid name.*svc\.name/ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/2024/report', { svc: { description: 'Report' } }, async () => ({}))
  }), { code: 'FST_SVC_NAME_NOT_DERIVABLE', message: /"2024\.report"/ })
})

t.test('an escaped colon stays in the derived name, which is then not a valid name', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/name::verb', { svc: { description: 'Verb' } }, async () => ({}))
  }), { code: 'FST_SVC_NAME_NOT_DERIVABLE', message: /GET \/name::verb gives "name:verb", not a valid name/ })
})

t.test('an underivable name is fine when svc.name is set', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/:id', { svc: { name: 'item', description: 'Item' } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), ['item'])
})

t.test('two routes with the same derived name: startup error naming both routes', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/carts/:id', { svc: { description: 'Get' } }, async () => ({}))
    app.delete('/carts/:id', { svc: { description: 'Delete' } }, async () => ({}))
  }), { code: 'FST_SVC_DUPLICATE_NAME', message: /GET \/carts\/:id and DELETE \/carts\/:id are both command "carts"\. Set svc\.name/ })
})

t.test('an explicit name that repeats a derived one: startup error naming both routes', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/cart/items', { svc: { description: 'List' } }, async () => ({}))
    app.post('/cart', { svc: { name: 'cart.items', description: 'Add' } }, async () => ({}))
  }), { code: 'FST_SVC_DUPLICATE_NAME', message: /GET \/cart\/items and POST \/cart are both command "cart\.items"/ })
})

const badCommandNames = ['1cart', 'cart..items', '.cart', 'cart.', 'cart items', 'cart/items', 'cart.1x', '', 'kaart.é']

for (const name of badCommandNames) {
  t.test(`svc.name ${JSON.stringify(name)} is refused`, async (t) => {
    await t.rejects(readyApp(t, {}, (app) => {
      app.get('/x', { svc: { name, description: 'X' } }, async () => ({}))
    }), { code: 'FST_SVC_INVALID_NAME', message: /command name .* \(route GET \/x, svc\.name\) must be dot-separated words/ })
  })
}

t.test('a svc.name that is not a string is refused', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/x', { svc: { name: 42 as unknown as string, description: 'X' } }, async () => ({}))
  }), { code: 'FST_SVC_INVALID_NAME', message: /command name 42/ })
})

t.test('valid names: letters, digits, "_" and "-", dot-separated', async (t) => {
  const names = ['a', 'Cart', 'cart.items', 'cart_items.add-one', 'x1.y2.z3']
  const manifest = await fetchManifest(await readyApp(t, {
    svc: '0.5.0',
    events: Object.fromEntries(names.map((name) => [name, { description: name }])),
    channels: Object.fromEntries(names.map((name) => [name, { description: name }])),
    types: { Product: Type.String(), _private: Type.String(), $dollar: Type.String(), Item2: Type.String() }
  }, (app) => {
    for (const name of names) app.get(`/${name.replace(/\./g, '/')}/x`, { svc: { name, description: name } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), [...names].sort())
  t.same(Object.keys(manifest.events), [...names].sort())
  t.same(Object.keys(manifest.channels ?? {}), [...names].sort())
  t.same(Object.keys(manifest.types), ['$dollar', 'Item2', 'Product', '_private'])
})

for (const name of ['1event', 'cart..updated', 'cart updated']) {
  t.test(`event name ${JSON.stringify(name)} is refused, as option and through app.svc.event`, async (t) => {
    const app = Fastify()
    app.register(svcManifest, { ...requiredOptions, events: { [name]: { description: 'E' } } })
    await t.rejects(ready(app), { code: 'FST_SVC_INVALID_NAME', message: /event name .*events.* must be dot-separated/ })
    const later = Fastify()
    await later.register(svcManifest, requiredOptions)
    t.throws(() => later.svc.event(name, { description: 'E' }), { code: 'FST_SVC_INVALID_NAME' })
  })
}

t.test('channel names follow the same rule', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0' })
  t.throws(() => app.svc.channel('cart state', { description: 'C' }), { code: 'FST_SVC_INVALID_NAME', message: /channel name "cart state"/ })
})

for (const name of ['product-item', '1Product', 'cart.Product', 'a b', '']) {
  t.test(`type name ${JSON.stringify(name)} is refused: types are identifiers`, async (t) => {
    const app = Fastify()
    app.register(svcManifest, { ...requiredOptions, types: { [name]: Type.String() } })
    await t.rejects(ready(app), { code: 'FST_SVC_INVALID_NAME', message: /type name .* must be an identifier/ })
  })
}

t.test('names: { style: \'rest\', stripPrefix } names a REST resource without clashes', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { names: { style: 'rest', stripPrefix: '/api' } }, async (app) => {
    await app.register(async (api) => {
      api.get('/articles', { svc: { description: 'List' } }, async () => [])
      api.post('/articles', { svc: { description: 'Create' } }, async () => ({}))
      api.get('/articles/:slug', { svc: { description: 'Get' } }, async () => ({}))
      api.put('/articles/:slug', { svc: { description: 'Update' } }, async () => ({}))
      api.patch('/articles/:slug/title', { svc: { description: 'Retitle' } }, async () => ({}))
      api.delete('/articles/:slug', { svc: { description: 'Delete' } }, async () => ({}))
      api.post('/articles/:slug/favorite', { svc: { description: 'Favourite' } }, async () => ({}))
      api.get('/profiles/:username/', { svc: { description: 'Profile' } }, async () => ({}))
      api.options('/articles', { svc: { description: 'Options' } }, async () => ({}))
      api.get('/feed', { svc: { name: 'articles.feed', description: 'Feed' } }, async () => [])
    }, { prefix: '/api' })
    app.get('/apis/status', { svc: { description: 'Not under the prefix' } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), [
    'apis.status.list', 'articles.create', 'articles.delete', 'articles.favorite.create', 'articles.feed', 'articles.get',
    'articles.list', 'articles.options', 'articles.title.update', 'articles.update', 'profiles.get'
  ], 'a verb from the method; "/api" stripped on a segment boundary only; svc.name wins')
})

t.test('stripPrefix alone keeps the path style', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { names: { stripPrefix: '/api/v1' } }, (app) => {
    app.get('/api/v1/users/:id/orders', { svc: { description: 'Orders' } }, async () => [])
  }))
  t.same(Object.keys(manifest.commands), ['users.orders'])
})

t.test('the root URL is command "root", after stripPrefix too; "root.list" or "root.get" in the rest style', async (t) => {
  const plain = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/', { svc: { description: 'The service\'s index' } }, async () => ({}))
  }))
  t.same(Object.keys(plain.commands), ['root'])
  const rest = await fetchManifest(await readyApp(t, { names: { style: 'rest', stripPrefix: '/api' } }, async (app) => {
    await app.register(async (api) => {
      api.get('/', { schema: { response: { 200: Type.Object({ version: Type.String() }) } }, svc: { description: 'API index' } }, async () => ({ version: '1' }))
      api.post('/', { svc: { description: 'Batch' } }, async () => ({}))
    }, { prefix: '/api' })
  }))
  t.same(Object.keys(rest.commands), ['root.create', 'root.get'], 'GET /api answers one object: root.get')
  const list = await fetchManifest(await readyApp(t, { names: { style: 'rest', stripPrefix: '/api' } }, (app) => {
    app.get('/api', { svc: { description: 'Index' } }, async () => ({}))
  }))
  t.same(Object.keys(list.commands), ['root.list'], 'no response schema: root.list')
})

t.test('rest style: a GET singleton answering one value is "get"; an array or an undeclared response stays "list"', async (t) => {
  const Config = Type.Object({ version: Type.String() })
  const manifest = await fetchManifest(await readyApp(t, { names: { style: 'rest' }, types: { Config, Versions: Type.Array(Type.String()), Latest: Type.Ref('Config') } }, (app) => {
    app.get('/health', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } }, svc: { description: 'Liveness' } }, async () => ({ ok: true }))
    app.get('/config/version', { schema: { response: { 200: Type.String() } }, svc: { description: 'Config version' } }, async () => '7')
    app.get('/config', { schema: { response: { 200: Type.Ref('Config') } }, svc: { description: 'Config' } }, async () => ({ version: '7' }))
    app.get('/config/latest', { schema: { response: { 200: Type.Ref('Latest') } }, svc: { description: 'A type that is another type' } }, async () => ({ version: '7' }))
    app.get('/status', { schema: { response: { 200: Type.Union([Type.Object({ up: Type.Boolean() }), Type.Null()]) } }, svc: { description: 'Nullable' } }, async () => null)
    app.get('/me', { svc: { description: 'svc.returns counts as the response', returns: Type.Object({ id: Type.String() }) } }, async () => ({ id: 'a' }))
    app.get('/roles', { schema: { response: { 200: Type.Array(Type.String()) } }, svc: { description: 'Roles' } }, async () => [])
    app.get('/versions', { schema: { response: { 200: Type.Ref('Versions') } }, svc: { description: 'A type that is an array' } }, async () => [])
    app.get('/audit', { svc: { description: 'No response schema' } }, async () => [])
    app.get('/users/:id', { schema: { response: { 200: Type.Array(Type.String()) } }, svc: { description: 'A last path param is one item' } }, async () => [])
    app.post('/config', { schema: { response: { 200: Config } }, svc: { description: 'Not a GET' } }, async () => ({ version: '8' }))
  }))
  t.same(Object.keys(manifest.commands), [
    'audit.list', 'config.create', 'config.get', 'config.latest.get', 'config.version.get', 'health.get', 'me.get', 'roles.list', 'status.get', 'users.get', 'versions.list'
  ])
})

t.test('rest style: a GET whose URL has items below it lists them, whatever its response looks like', async (t) => {
  const Page = Type.Object({ articles: Type.Array(Type.String()), articlesCount: Type.Integer() })
  const manifest = await fetchManifest(await readyApp(t, { names: { style: 'rest', stripPrefix: '/api' } }, async (app) => {
    await app.register(async (api) => {
      api.get('/articles', { schema: { response: { 200: Page } }, svc: { description: 'Articles, a page at a time' } }, async () => ({ articles: [], articlesCount: 0 }))
      api.get('/articles/:slug/', { svc: { description: 'One article' } }, async () => ({}))
      api.get('/articles/:slug/comments', { schema: { response: { 200: Type.Object({ comments: Type.Array(Type.String()) }) } }, svc: { description: 'Comments' } }, async () => ({ comments: [] }))
      api.delete('/articles/:article/comments/:id(^\\d+)', { svc: { description: 'Delete a comment' } }, async () => null)
      api.get('/tags', { schema: { response: { 200: Type.Object({ tags: Type.Array(Type.String()) }) } }, svc: { description: 'Tags' } }, async () => ({ tags: [] }))
    }, { prefix: '/api' })
  }))
  t.same(Object.keys(manifest.commands), ['articles.comments.delete', 'articles.comments.list', 'articles.get', 'articles.list', 'tags.get'],
    'GET /api/articles beside GET /api/articles/:slug is not a second articles.get; a DELETE of one comment makes the comments a collection')
})

t.test('path style: a singleton keeps its plain name', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/health', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } }, svc: { description: 'Liveness' } }, async () => ({ ok: true }))
  }))
  t.same(Object.keys(manifest.commands), ['health'])
})

const badNames: [unknown, RegExp][] = [
  ['rest', /"names" must be an object/],
  [{ style: 'verbs' }, /"names\.style" must be "path" or "rest"; got "verbs"/],
  [{ stripPrefix: 'api' }, /"names\.stripPrefix" must be a URL path of static segments/],
  [{ stripPrefix: '/api/' }, /"names\.stripPrefix" must be/],
  [{ stripPrefix: '/api/:v' }, /"names\.stripPrefix" must be/],
  [{ prefix: '/api' }, /"names\.prefix" must be absent \(names takes style and stripPrefix\)/]
]
for (const [names, message] of badNames) {
  t.test(`names ${JSON.stringify(names)} is refused`, async (t) => {
    await t.rejects(readyApp(t, { names: names as never }), { code: 'FST_SVC_INVALID_OPTION', message })
  })
}
