import { connect } from 'node:net'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

const GOOD = 'good-token'
const verify = (token: string): unknown => token === GOOD && { sub: 'alice' }

/**
 * Commands requiring auth at `/cart/items`, `/carts/:id`, and as prefixed `'/'` routes at `/orders`
 * (prefix without slash) and `/wishlist/` (prefix with slash). `handled` records every handler run.
 */
async function shop (serverOptions: FastifyServerOptions = {}): Promise<{ app: FastifyInstance, handled: string[] }> {
  const app = Fastify(serverOptions)
  const handled: string[] = []
  const handler = (name: string) => async () => {
    handled.push(name)
    return name
  }
  await app.register(svcManifest, { ...requiredOptions, auth: { type: 'bearer', description: 'Token', verify } })
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, handler('cart.items'))
  app.get('/carts/:id', { svc: { description: 'One cart', auth: 'required' } }, handler('carts'))
  await app.register(async (orders) => {
    orders.get('/', { svc: { description: 'Orders', name: 'orders', auth: 'required' } }, handler('orders'))
    orders.post('/', { svc: { description: 'Place an order', name: 'orders.place', auth: 'required' } }, handler('orders.place'))
  }, { prefix: '/orders' })
  await app.register(async (wishlist) => {
    wishlist.get('/', { svc: { description: 'Wishlist', name: 'wishlist', auth: 'required' } }, handler('wishlist'))
  }, { prefix: '/wishlist/' })
  await app.ready()
  return { app, handled }
}

/** Paths an attacker may try for the routes above: case, slashes, encodings, dot segments, query, params. */
const VARIANTS = [
  '/cart/items', '/cart/items/', '/cart/items//', '//cart/items', '/cart//items', '/CART/ITEMS', '/Cart/Items/',
  '/cart/%69tems', '/cart/%69TEMS', '/%63art/items', '/cart%2Fitems', '/cart/items%2F', '/cart/items%20', '/cart/items%00',
  '/cart/./items', '/cart/x/../items', '/cart/items?x=1', '/cart/items?', '/cart/items#x', '/cart/items;x=1',
  '/carts/1', '/carts/%2e%2e', '/carts/1/', '/CARTS/1', '/carts/..%2Fcart%2Fitems',
  '/orders', '/orders/', '/orders//', '/ORDERS', '/Orders/', '/%6frders',
  '/wishlist', '/wishlist/', '/wishlist//', '/WISHLIST/', '/wishlist%2F'
]

/** The property that matters: any path that reaches a handler with a token is refused without one. */
async function assertNoVariantLeaks (t: Test, serverOptions: FastifyServerOptions): Promise<string[]> {
  const { app, handled } = await shop(serverOptions)
  const reached: string[] = []
  for (const url of VARIANTS) {
    for (const method of ['GET', 'HEAD', 'POST'] as const) {
      const before = handled.length
      const anonymous = await app.inject({ method, url })
      t.equal(handled.length, before, `${method} ${url} anonymous: no handler ran`)
      const withToken = await app.inject({ method, url, headers: { authorization: `Bearer ${GOOD}` } })
      if (withToken.statusCode === 200) {
        reached.push(`${method} ${url}`)
        t.equal(anonymous.statusCode, 401, `${method} ${url} reaches a handler with a token and is refused without one`)
        t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"')
      } else {
        t.equal(anonymous.statusCode, withToken.statusCode, `${method} ${url} answers ${withToken.statusCode} either way`)
      }
    }
  }
  return reached
}

t.test('default router: every path variant that reaches a handler is guarded', async (t) => {
  const reached = await assertNoVariantLeaks(t, {})
  for (const url of ['/cart/items', '/cart/%69tems', '/%63art/items', '/carts/1', '/orders', '/orders/', '/wishlist/', '/cart/items?x=1']) {
    t.ok(reached.includes(`GET ${url}`), `GET ${url} is a real variant`)
  }
  t.ok(reached.includes('HEAD /orders/'), 'the HEAD twin of the prefixed \'/\' route')
  t.ok(reached.includes('POST /orders/'), 'the second URL of a prefixed \'/\' POST')
})

t.test('ignoreTrailingSlash: trailing-slash variants are guarded', async (t) => {
  const reached = await assertNoVariantLeaks(t, { routerOptions: { ignoreTrailingSlash: true } })
  for (const variant of ['GET /cart/items/', 'HEAD /cart/items/', 'GET /carts/1/', 'GET /orders/', 'POST /orders/', 'GET /wishlist', 'HEAD /wishlist/']) {
    t.ok(reached.includes(variant), `${variant} is a real variant`)
  }
})

t.test('caseSensitive: false: upper-case variants are guarded', async (t) => {
  const reached = await assertNoVariantLeaks(t, { routerOptions: { caseSensitive: false } })
  for (const variant of ['GET /CART/ITEMS', 'HEAD /CART/ITEMS', 'GET /cart/%69TEMS', 'GET /CARTS/1', 'GET /ORDERS', 'POST /ORDERS', 'GET /WISHLIST/']) {
    t.ok(reached.includes(variant), `${variant} is a real variant`)
  }
})

/** find-my-way's option types omit `useSemicolonDelimiter`, which Fastify 5 does pass on to the router. */
function routerOptions (options: Record<string, boolean>): FastifyServerOptions['routerOptions'] {
  return options as FastifyServerOptions['routerOptions']
}

t.test('ignoreDuplicateSlashes and useSemicolonDelimiter: their variants are guarded', async (t) => {
  const reached = await assertNoVariantLeaks(t, { routerOptions: routerOptions({ ignoreDuplicateSlashes: true, useSemicolonDelimiter: true }) })
  for (const variant of ['GET //cart/items', 'GET /cart//items', 'GET /cart/items;x=1', 'GET /orders//', 'GET /wishlist//']) {
    t.ok(reached.includes(variant), `${variant} is a real variant`)
  }
})

t.test('all router options at once', async (t) => {
  const reached = await assertNoVariantLeaks(t, {
    routerOptions: routerOptions({ ignoreTrailingSlash: true, caseSensitive: false, ignoreDuplicateSlashes: true, useSemicolonDelimiter: true })
  })
  t.ok(reached.includes('GET /Cart/Items/'))
  t.ok(reached.includes('GET /WISHLIST/'))
})

t.test('exposeHeadRoutes: false leaves no unguarded HEAD route', async (t) => {
  const { app, handled } = await shop({ exposeHeadRoutes: false })
  t.equal((await app.inject({ method: 'HEAD', url: '/cart/items' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/cart/items' })).statusCode, 401)
  t.same(handled, [])
})

/** Sends raw HTTP/1.1 bytes, so the path reaches Node exactly as written (no client-side normalisation). */
function rawRequest (port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => { received += chunk })
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
    socket.end(`${head}\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
  })
}

function statusOf (response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1])
}

t.test('over a real socket: raw request targets and repeated headers are guarded', async (t) => {
  const { app, handled } = await shop({ routerOptions: { ignoreTrailingSlash: true, caseSensitive: false } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const targets = [...VARIANTS, 'http://localhost/cart/items', '/cart/items?%00', '/cart/items\\', '/cart\\items', '*']
  for (const target of targets) {
    const before = handled.length
    const anonymous = await rawRequest(port, `GET ${target} HTTP/1.1`)
    t.equal(handled.length, before, `${target}: no handler ran without a token`)
    const status = statusOf(anonymous)
    if (status === 401) t.match(anonymous, /\r\nwww-authenticate: Bearer realm="Shop"\r\n/i, target)
    else t.not(status, 200, target)
  }
  const good = await rawRequest(port, `GET /cart/%69tems HTTP/1.1\r\nAuthorization: Bearer ${GOOD}`)
  t.equal(statusOf(good), 200, 'the same socket path works with a token')
  for (const headers of [
    `Authorization: Bearer ${GOOD}\r\nAuthorization: Bearer ${GOOD}`,
    `Authorization: Bearer ${GOOD}\r\nauthorization: Bearer wrong`,
    `Authorization: Bearer wrong\r\nAuthorization: Bearer ${GOOD}`
  ]) {
    const response = await rawRequest(port, `GET /cart/items HTTP/1.1\r\n${headers}`)
    t.equal(statusOf(response), 401, `two Authorization headers: ${JSON.stringify(headers)}`)
    t.match(response, /\r\nwww-authenticate: Bearer realm="Shop", error="invalid_token"\r\n/i)
  }
  t.same(handled, ['cart.items'], 'only the request with one good token reached a handler')
})
