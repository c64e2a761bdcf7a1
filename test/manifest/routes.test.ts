import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

t.test('the automatic HEAD twin of a GET is not a separate command', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }) } }, async () => [])
  })
  t.same(Object.keys((await fetchManifest(app)).commands), ['search'])
  t.equal((await app.inject({ method: 'HEAD', url: '/search?q=a' })).statusCode, 200, 'the HEAD route exists')
})

t.test('a route declared with method [GET, HEAD] is one command', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.route({ method: ['GET', 'HEAD'], url: '/status', svc: { description: 'Status' }, handler: async () => ({}) })
  }))
  t.same(Object.keys(manifest.commands), ['status'])
})

t.test('a HEAD-only route is a command of its own', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.head('/exists', { svc: { description: 'Does it exist' } }, async () => '')
    app.route({ method: ['HEAD'], url: '/present', svc: { description: 'Is it present' }, handler: async () => '' })
  }))
  t.same(Object.keys(manifest.commands), ['exists', 'present'])
})

t.test('a prefixed "/" route is collected once', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(async (cart) => {
      cart.get('/', { svc: { description: 'Show the cart', params: Type.Object({ currency: Type.String() }) } }, async (request) => request.query)
    }, { prefix: '/cart' })
  })
  t.same((await fetchManifest(app)).commands, { cart: { description: 'Show the cart', params: { currency: { type: 'string', required: true } } } })
  for (const url of ['/cart', '/cart/']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 400, `${url} validates svc.params`)
    t.equal((await app.inject({ method: 'GET', url: `${url}?currency=EUR` })).statusCode, 200, `${url} answers`)
    t.equal((await app.inject({ method: 'HEAD', url: `${url}?currency=EUR` })).statusCode, 200, `HEAD ${url} answers`)
  }
})

t.test('a prefixed "/" POST validates its body on both URLs', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(async (orders) => {
      orders.post('/', { svc: { description: 'Place an order', params: Type.Object({ sku: Type.String() }) } }, async () => ({}))
    }, { prefix: '/orders' })
  })
  t.same(Object.keys((await fetchManifest(app)).commands), ['orders'])
  for (const url of ['/orders', '/orders/']) {
    t.equal((await app.inject({ method: 'POST', url, payload: {} })).statusCode, 400, url)
    t.equal((await app.inject({ method: 'POST', url, payload: { sku: 'a' } })).statusCode, 200, url)
  }
})

t.test('routes in nested prefixed plugins are collected with their full URL', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, async (app) => {
    await app.register(async (api) => {
      await api.register(async (v1) => {
        v1.get('/carts/:id/items', { svc: { description: 'Cart items' } }, async () => [])
        v1.get('/', { svc: { description: 'API root' } }, async () => ({}))
      }, { prefix: '/v1' })
    }, { prefix: '/api' })
  }))
  t.same(Object.keys(manifest.commands), ['api.v1', 'api.v1.carts.items'])
})

t.test('one svc object shared by several different routes gives a command each, and their HEAD twins none', async (t) => {
  const shared = { description: 'List' }
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/products', { svc: shared }, async () => [])
    app.get('/orders', { svc: shared }, async () => [])
    app.get('/shelves', { svc: shared }, async () => [])
  }))
  t.same(Object.keys(manifest.commands), ['orders', 'products', 'shelves'])
})

t.test('a route with more than one method (HEAD aside) is a startup error', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.route({ method: ['GET', 'POST'], url: '/cart', svc: { description: 'Cart' }, handler: async () => ({}) })
  }), { code: 'FST_SVC_MULTI_METHOD', message: /route GET,POST \/cart answers GET and POST.*one route per method/ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.route({ method: ['PUT', 'HEAD', 'PATCH'], url: '/cart', svc: { description: 'Cart' }, handler: async () => ({}) })
  }), { code: 'FST_SVC_MULTI_METHOD', message: /answers PUT and PATCH/ })
})

t.test('routes without svc are untouched and not in the manifest', async (t) => {
  const schema = { querystring: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }
  const app = await readyApp(t, {}, (app) => {
    app.get('/plain', async () => ({ plain: true }))
    app.route({ method: ['GET', 'POST'], url: '/multi', handler: async () => ({ multi: true }) })
    app.get('/validated', { schema }, async (request) => request.query)
    app.get('/', async () => 'home')
  })
  t.same((await fetchManifest(app)).commands, {})
  t.same((await app.inject('/plain')).json(), { plain: true })
  t.same((await app.inject({ method: 'POST', url: '/multi' })).json(), { multi: true })
  t.equal((await app.inject('/validated')).statusCode, 400)
  t.equal((await app.inject('/')).body, 'home')
})

t.test('the manifest route is not a command', async (t) => {
  const manifest = await fetchManifest(await readyApp(t))
  t.same(manifest.commands, {})
  const custom = await fetchManifest(await readyApp(t, { path: '/svc' }), '/svc')
  t.same(custom.commands, {})
})

t.test('routes registered before the plugin are not seen', async (t) => {
  const app = Fastify()
  app.get('/early', { svc: { description: 'Too early' } }, async () => ({}))
  await app.register(svcManifest, requiredOptions)
  app.get('/late', { svc: { description: 'In time' } }, async () => ({}))
  await app.ready()
  t.same(Object.keys((await fetchManifest(app)).commands), ['late'])
})

t.test('a route option object reused after registration does not change the command', async (t) => {
  const options = { svc: { description: 'Search', tags: ['catalog'] } }
  const app = await readyApp(t, {}, (app) => {
    app.get('/search', options, async () => [])
    options.svc.tags.push('late')
    options.svc.description = 'Changed'
  })
  t.same((await fetchManifest(app)).commands.search, { description: 'Search', tags: ['catalog'] })
})

t.test('a GET with exposeHeadRoute: false is one command, and has no HEAD route', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/status', { exposeHeadRoute: false, svc: { description: 'Status' } }, async () => ({}))
  })
  t.same(Object.keys((await fetchManifest(app)).commands), ['status'])
  t.equal((await app.inject({ method: 'HEAD', url: '/status' })).statusCode, 404)
})

t.test('a HEAD route declared before its GET is a command of its own', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.head('/files/:id', { svc: { name: 'files.exists', description: 'Does the file exist' } }, async () => '')
    app.get('/files/:id', { svc: { description: 'Get a file' } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), ['files', 'files.exists'])
})

t.test('router options do not change what is collected', async (t) => {
  const ignoreTrailingSlash = await readyApp(t, {}, async (app) => {
    await app.register(async (cart) => {
      cart.get('/', { svc: { description: 'The cart' } }, async () => ({}))
    }, { prefix: '/cart' })
    app.get('/orders/', { svc: { description: 'Orders' } }, async () => [])
  }, { routerOptions: { ignoreTrailingSlash: true } })
  t.same(Object.keys((await fetchManifest(ignoreTrailingSlash)).commands), ['cart', 'orders'])

  const caseInsensitive = await readyApp(t, {}, (app) => {
    app.get('/Cart/Items', { svc: { description: 'Items' } }, async () => [])
  }, { routerOptions: { caseSensitive: false } })
  t.same(Object.keys((await fetchManifest(caseInsensitive)).commands), ['Cart.Items'], 'the name keeps the URL as written')
  t.equal((await caseInsensitive.inject({ method: 'GET', url: '/.WELL-KNOWN/SVC.JSON' })).statusCode, 200)
})
