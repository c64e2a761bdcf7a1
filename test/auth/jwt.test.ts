import fastifyJwt from '@fastify/jwt'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

const SECRET = 'a-secret-of-the-shop-that-is-long-enough'
const JWT_AUTH = { type: 'bearer', description: 'JWT signed by the shop' } as const

/** The plugin without `auth.verify`, @fastify/jwt registered after it, one command requiring auth. */
async function jwtShop (): Promise<{ app: FastifyInstance, handled: unknown[] }> {
  const app = Fastify()
  const handled: unknown[] = []
  await app.register(svcManifest, { ...requiredOptions, auth: JWT_AUTH })
  await app.register(fastifyJwt, { secret: SECRET })
  app.get('/cart/items', { svc: { description: 'Items in the cart', auth: 'required' } }, async (request) => {
    handled.push(request.svcCredential)
    return { credential: request.svcCredential, user: request.user }
  })
  await app.ready()
  return { app, handled }
}

function base64url (value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

async function get (app: FastifyInstance, token: string) {
  return app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${token}` } })
}

t.test('with @fastify/jwt and no verify, a signed token is verified by request.jwtVerify()', async (t) => {
  const { app } = await jwtShop()
  const token = app.jwt.sign({ sub: 'alice' })
  const response = await get(app, token)
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.match(body.credential, { sub: 'alice', iat: Number }, 'the decoded payload is the credential')
  t.same(body.user, body.credential, '@fastify/jwt also sets request.user')
})

t.test('tokens @fastify/jwt refuses get 401 invalid_token and never reach the handler', async (t) => {
  const { app, handled } = await jwtShop()
  const other = Fastify()
  await other.register(fastifyJwt, { secret: 'another-secret-that-is-also-long-enough' })
  await other.ready()
  const now = Math.floor(Date.now() / 1000)
  const cases = {
    expired: app.jwt.sign({ sub: 'alice', iat: now - 120, exp: now - 60 }),
    'not valid yet': app.jwt.sign({ sub: 'alice', nbf: now + 3600 }),
    'signed with another secret': other.jwt.sign({ sub: 'alice' }),
    'alg none (unsigned)': `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'alice', iat: now })}.`,
    'a tampered payload': (() => {
      const [header, , signature] = app.jwt.sign({ sub: 'alice' }).split('.')
      return `${header}.${base64url({ sub: 'admin' })}.${signature}`
    })(),
    'not a JWT': 'opaque-token'
  }
  for (const [label, token] of Object.entries(cases)) {
    const response = await get(app, token)
    t.equal(response.statusCode, 401, label)
    t.equal(response.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"', label)
    t.same(response.json(), { statusCode: 401, code: 'FST_SVC_UNAUTHORIZED', error: 'Unauthorized', message: 'The bearer token was refused.' }, label)
  }
  t.same(handled, [])
})

t.test('with @fastify/jwt, an anonymous request is refused before jwtVerify is called', async (t) => {
  const { app } = await jwtShop()
  const response = await app.inject({ url: '/cart/items' })
  t.equal(response.statusCode, 401)
  t.equal(response.headers['www-authenticate'], 'Bearer realm="Shop"')
  t.equal(response.json().code, 'FST_SVC_UNAUTHORIZED', 'not @fastify/jwt\'s own error')
})

t.test('auth.verify wins over @fastify/jwt when both are there', async (t) => {
  const app = Fastify()
  await app.register(fastifyJwt, { secret: SECRET })
  await app.register(svcManifest, { ...requiredOptions, auth: { ...JWT_AUTH, verify: (token) => token === 'opaque' && { opaque: true } } })
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async (request) => request.svcCredential)
  await app.ready()
  t.same((await get(app, 'opaque')).json(), { opaque: true })
  t.equal((await get(app, app.jwt.sign({ sub: 'alice' }))).statusCode, 401, 'a JWT is not checked by @fastify/jwt')
})

t.test('@fastify/jwt registered inside an encapsulated plugin does not count: fail closed', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, auth: JWT_AUTH })
  await app.register(async (child) => {
    // fastify-plugin would lift the decorator; a plain wrapper keeps it inside `child`.
    await child.register(async (inner) => { await inner.register(fastifyJwt, { secret: SECRET }) })
    child.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
  })
  await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_AUTH_NOT_CONFIGURED', message: /@fastify\/jwt is not registered/ })
})
