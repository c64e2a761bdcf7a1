import type { FastifyInstance, InjectOptions } from 'fastify'
import t from 'tap'
import { ADMIN_TOKEN, buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import { execute } from '../helpers/invoke.js'

const bearer = { authorization: `Bearer ${DEMO_TOKEN}` }
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

interface Call {
  command: string
  params?: Record<string, unknown>
  headers?: Record<string, string>
  /** The same call made on the route itself. */
  route: InjectOptions
}

/** A session of a shopper, every command of the shop included, failures too. */
const calls: Call[] = [
  { command: 'search', params: { q: 'tea' }, route: { url: '/search?q=tea' } },
  { command: 'search', params: { q: 'TEA', limit: 1 }, route: { url: '/search?q=TEA&limit=1' } },
  { command: 'search', params: { q: 'kettle', limit: 0 }, route: { url: '/search?q=kettle&limit=0' } },
  { command: 'search', params: {}, route: { url: '/search' } },
  { command: 'cart.get', route: { url: '/cart' } },
  { command: 'cart.get', headers: bearer, route: { url: '/cart', headers: bearer } },
  { command: 'cart.add', params: { sku: 'mug' }, headers: bearer, route: { method: 'POST', url: '/cart/items', headers: bearer, payload: { sku: 'mug' } } },
  { command: 'cart.add', params: { sku: 'tea-green', quantity: 3 }, headers: bearer, route: { method: 'POST', url: '/cart/items', headers: bearer, payload: { sku: 'tea-green', quantity: 3 } } },
  { command: 'cart.add', params: { sku: 'teapot' }, headers: bearer, route: { method: 'POST', url: '/cart/items', headers: bearer, payload: { sku: 'teapot' } } },
  { command: 'cart.add', params: { sku: 'mug', quantity: 'two' }, headers: bearer, route: { method: 'POST', url: '/cart/items', headers: bearer, payload: { sku: 'mug', quantity: 'two' } } },
  { command: 'cart.add', params: { sku: 'mug' }, headers: { authorization: 'Bearer wrong' }, route: { method: 'POST', url: '/cart/items', headers: { authorization: 'Bearer wrong' }, payload: { sku: 'mug' } } },
  { command: 'cart.remove', params: { sku: 'mug' }, headers: bearer, route: { method: 'DELETE', url: '/cart/items/mug', headers: bearer } },
  { command: 'cart.remove', params: { sku: 'tea green/½' }, headers: bearer, route: { method: 'DELETE', url: '/cart/items/tea%20green%2F%C2%BD', headers: bearer } },
  { command: 'cart.get', headers: bearer, route: { url: '/cart', headers: bearer } },
  { command: 'admin.sales', headers: admin, route: { url: '/admin/sales', headers: admin } }
]

const CODES: Record<number, string> = { 400: 'INVALID_PARAMS', 401: 'UNAUTHORIZED', 404: 'NOT_FOUND' }

t.test('every command of the shop answers through execute what its route answers', async (t) => {
  // Two shops in the same state: one called on its routes, one through execute, call after call.
  const direct = await buildShop()
  const invoked = await buildShop()
  t.teardown(() => direct.close())
  t.teardown(() => invoked.close())
  await invoked.ready()
  const called = new Set<string>()

  for (const call of calls) {
    const label = `${call.command} ${JSON.stringify(call.params ?? {})}`
    const expected = await direct.inject(call.route)
    const response = await execute(invoked, call.command, call.params, call.headers)
    called.add(call.command)
    if (expected.statusCode === 200) {
      t.equal(response.statusCode, 200, label)
      t.same(response.json(), { ok: true, result: expected.json() }, label)
      continue
    }
    t.equal(response.statusCode, expected.statusCode, `${label}: the route's status`)
    const error = { code: CODES[expected.statusCode], message: expected.json().message, status: expected.statusCode }
    t.same(response.json(), { ok: false, error: expected.json().code === undefined ? error : { ...error, cause: expected.json().code } }, label)
    t.equal(response.headers['www-authenticate'], expected.headers['www-authenticate'], `${label}: the challenge`)
  }
  t.same([...called].sort(), Object.keys(invoked.svc.manifest.commands), 'every command was called')
})

t.test('the shop\'s manifest names the execute, pipeline and events endpoints', async (t) => {
  const app: FastifyInstance = await buildShop()
  t.teardown(() => app.close())
  const response = await app.inject('/.well-known/svc.json')
  t.equal(response.headers.link, '</svc/execute>; rel="svc-execute", </svc/pipeline>; rel="svc-pipeline", </svc/events>; rel="svc-events"')
})
