import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcVerify } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

const GOOD = 'good-token'
const CREDENTIAL = { sub: 'alice', scopes: ['cart'] }
const BEARER_AUTH = { type: 'bearer', description: 'Opaque bearer token' } as const

/** Accepts exactly GOOD and answers CREDENTIAL; counts its calls. */
function countingVerifier (): SvcVerify & { calls: string[] } {
  const calls: string[] = []
  const verify = (token: string): unknown => {
    calls.push(token)
    return token === GOOD ? CREDENTIAL : null
  }
  return Object.assign(verify, { calls })
}

interface ShopApp {
  app: FastifyInstance
  handled: string[]
}

/** `GET /cart/items` requires auth, `GET /catalog` is a command without auth, `GET /health` has no svc. */
async function shop (verify: SvcVerify = countingVerifier(), serverOptions = {}): Promise<ShopApp> {
  const app = Fastify(serverOptions)
  const handled: string[] = []
  await app.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify } })
  app.get('/cart/items', { svc: { description: 'Items in the cart', auth: 'required' } }, async (request) => {
    handled.push('cart.items')
    return { credential: request.svcCredential }
  })
  app.get('/catalog', { svc: { description: 'The catalogue' } }, async (request) => {
    handled.push('catalog')
    return { credential: request.svcCredential }
  })
  app.get('/health', async () => {
    handled.push('health')
    return { ok: true }
  })
  await app.ready()
  return { app, handled }
}

/** Request headers; an array is sent as repeated Authorization headers. */
function withAuthorization (authorization: string | readonly string[] | undefined): Record<string, string> {
  return (authorization === undefined ? {} : { authorization }) as Record<string, string>
}

t.test('a valid token reaches the handler, which reads the credential on request.svcCredential', async (t) => {
  const verify = countingVerifier()
  const { app, handled } = await shop(verify)
  const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${GOOD}` } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { credential: CREDENTIAL })
  t.same(verify.calls, [GOOD], 'the verifier gets the token without the scheme')
  t.same(handled, ['cart.items'])
})

t.test('the verifier receives the request', async (t) => {
  let seen: FastifyRequest | undefined
  const { app } = await shop((token, request) => {
    seen = request
    return request.headers['x-tenant'] === 'acme' && token === GOOD
  })
  const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${GOOD}`, 'x-tenant': 'acme' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { credential: true }, 'any truthy result is the credential')
  t.equal(seen?.url, '/cart/items')
})

t.test('an anonymous request gets 401 with the challenge and Fastify\'s error JSON', async (t) => {
  const { app, handled } = await shop()
  const response = await app.inject({ url: '/cart/items' })
  t.equal(response.statusCode, 401)
  t.equal(response.headers['www-authenticate'], 'Bearer realm="Shop"', 'no error attribute when no token was sent')
  t.match(response.headers['content-type'], /^application\/json/)
  t.same(response.json(), {
    statusCode: 401,
    code: 'FST_SVC_UNAUTHORIZED',
    error: 'Unauthorized',
    message: 'Missing bearer credential. Send "Authorization: Bearer <token>".'
  })
  t.same(handled, [])
})

const REFUSED = { www: 'Bearer realm="Shop", error="invalid_token"', message: 'The bearer token was refused.' }
const MISSING = { www: 'Bearer realm="Shop"', message: /^Missing bearer credential/ }

for (const [label, authorization, expected, verified] of [
  ['no Authorization header', undefined, MISSING, false],
  ['another scheme (Basic)', `Basic ${Buffer.from('alice:secret').toString('base64')}`, MISSING, false],
  ['the scheme glued to the token', `Bearer${GOOD}`, MISSING, false],
  ['leading space before the scheme', ` Bearer ${GOOD}`, MISSING, false],
  ['an empty header', '', MISSING, false],
  ['Bearer with no token', 'Bearer', REFUSED, false],
  ['Bearer followed by spaces only', 'Bearer    ', REFUSED, false],
  ['Bearer and a tab before the token', `Bearer\t${GOOD}`, REFUSED, false],
  ['a token with a space inside', 'Bearer good token', REFUSED, false],
  ['a token with a comma (two credentials in one header)', `Bearer ${GOOD}, Bearer ${GOOD}`, REFUSED, false],
  ['a token with characters outside b64token', 'Bearer good"token', REFUSED, false],
  ['a wrong token', 'Bearer wrong-token', REFUSED, true],
  ['a 10 kB token', `Bearer ${'a'.repeat(10_000)}`, REFUSED, true],
  ['two Authorization headers, the good one first', [`Bearer ${GOOD}`, 'Bearer wrong-token'], REFUSED, false],
  ['two Authorization headers, the good one last', ['Bearer wrong-token', `Bearer ${GOOD}`], REFUSED, false],
  ['two identical good Authorization headers', [`Bearer ${GOOD}`, `Bearer ${GOOD}`], REFUSED, false]
] as const) {
  t.test(`refused: ${label}`, async (t) => {
    const verify = countingVerifier()
    const { app, handled } = await shop(verify)
    const response = await app.inject({ url: '/cart/items', headers: withAuthorization(authorization) })
    t.equal(response.statusCode, 401)
    t.equal(response.headers['www-authenticate'], expected.www)
    t.match(response.json(), { statusCode: 401, code: 'FST_SVC_UNAUTHORIZED', error: 'Unauthorized', message: expected.message })
    t.equal(verify.calls.length, verified ? 1 : 0, verified ? 'the verifier decided' : 'refused before the verifier')
    t.same(handled, [])
  })
}

for (const authorization of [`Bearer ${GOOD}`, `bearer ${GOOD}`, `BEARER ${GOOD}`, `bEaReR ${GOOD}`, `Bearer   ${GOOD}`, `Bearer ${GOOD}   `]) {
  t.test(`accepted: ${JSON.stringify(authorization)} (scheme in any case, spaces around the token)`, async (t) => {
    const { app } = await shop()
    const response = await app.inject({ url: '/cart/items', headers: { authorization } })
    t.equal(response.statusCode, 200)
    t.same(response.json(), { credential: CREDENTIAL })
  })
}

t.test('a 10 kB token the verifier accepts is passed whole', async (t) => {
  const long = 'x'.repeat(10_240)
  const { app } = await shop((token) => token === long && { long: true })
  const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${long}` } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { credential: { long: true } })
})

t.test('base64 padding and every b64token character are accepted', async (t) => {
  const token = 'AZaz09-._~+/=='
  const { app } = await shop((received) => received === token)
  const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${token}` } })
  t.equal(response.statusCode, 200)
})

for (const [label, result] of [['null', null], ['false', false], ['undefined', undefined], ['0', 0], ['an empty string', '']] as const) {
  t.test(`a verifier returning ${label} refuses`, async (t) => {
    const { app, handled } = await shop(() => result)
    const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${GOOD}` } })
    t.equal(response.statusCode, 401)
    t.equal(response.headers['www-authenticate'], REFUSED.www)
    t.same(handled, [])
  })
}

t.test('a verifier that resolves to a falsy value refuses', async (t) => {
  const { app } = await shop(async () => false)
  const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${GOOD}` } })
  t.equal(response.statusCode, 401)
})

/** A Fastify logger whose lines are collected as parsed JSON. */
function collectingLogger () {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    }
  })
  return { lines, logger: { level: 'info', stream } }
}

for (const [label, verify] of [
  ['throws', (): never => { throw new Error('signature mismatch for kid 42') }],
  ['rejects', async (): Promise<never> => { throw new Error('signature mismatch for kid 42') }]
] as const) {
  t.test(`a verifier that ${label} refuses; its message is logged, never sent`, async (t) => {
    const { lines, logger } = collectingLogger()
    const { app, handled } = await shop(verify, { logger })
    const response = await app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${GOOD}` } })
    t.equal(response.statusCode, 401)
    t.equal(response.headers['www-authenticate'], REFUSED.www)
    t.equal(response.json().message, REFUSED.message)
    t.notMatch(response.body, /kid 42/, 'the client does not learn why')
    const logged = lines.find((line) => line.msg === 'bearer token refused by the verifier')
    t.match(logged, { level: 30, err: { message: 'signature mismatch for kid 42' } })
    t.same(handled, [])
  })
}

t.test('a slow verifier holds the request, and other requests are not blocked by it', async (t) => {
  const { app, handled } = await shop(async (token) => {
    await new Promise((resolve) => setTimeout(resolve, token === 'slow' ? 200 : 1))
    return { token }
  })
  const started = Date.now()
  const slow = app.inject({ url: '/cart/items', headers: { authorization: 'Bearer slow' } })
  const fast = await app.inject({ url: '/cart/items', headers: { authorization: 'Bearer fast' } })
  t.ok(Date.now() - started < 200, 'the fast request is answered while the slow one waits')
  t.same(handled, ['cart.items'], 'the slow request has not reached the handler yet')
  t.same(fast.json(), { credential: { token: 'fast' } })
  t.same((await slow).json(), { credential: { token: 'slow' } })
  t.ok(Date.now() - started >= 190, 'the slow request waited for its verifier')
})

t.test('the HEAD twin of a GET command is protected too', async (t) => {
  const { app, handled } = await shop()
  const anonymous = await app.inject({ method: 'HEAD', url: '/cart/items' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"')
  t.equal(anonymous.body, '')
  const refused = await app.inject({ method: 'HEAD', url: '/cart/items', headers: { authorization: 'Bearer nope' } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['www-authenticate'], REFUSED.www)
  t.same(handled, [])
  const allowed = await app.inject({ method: 'HEAD', url: '/cart/items', headers: { authorization: `Bearer ${GOOD}` } })
  t.equal(allowed.statusCode, 200)
  t.same(handled, ['cart.items'])
})

t.test('a route answering GET and HEAD itself is protected on both methods', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
  app.route({ method: ['GET', 'HEAD'], url: '/orders', svc: { description: 'Orders', auth: 'required' }, handler: async () => 'orders' })
  await app.ready()
  for (const method of ['GET', 'HEAD'] as const) {
    t.equal((await app.inject({ method, url: '/orders' })).statusCode, 401, `${method} anonymous`)
    t.equal((await app.inject({ method, url: '/orders', headers: { authorization: `Bearer ${GOOD}` } })).statusCode, 200, `${method} with a token`)
  }
})

t.test('the route\'s own onRequest hooks run after the check, and never for a refused request', async (t) => {
  const app = Fastify()
  const seen: unknown[] = []
  await app.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
  const own = [async (request: FastifyRequest) => { seen.push(request.svcCredential) }]
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' }, onRequest: own }, async () => 'ok')
  app.post('/cart/items', { svc: { description: 'Add an item', name: 'cart.add', auth: 'required' }, onRequest: own[0] }, async () => 'added')
  await app.ready()
  t.equal((await app.inject({ url: '/cart/items' })).statusCode, 401)
  t.equal((await app.inject({ method: 'HEAD', url: '/cart/items' })).statusCode, 401)
  t.equal((await app.inject({ method: 'POST', url: '/cart/items' })).statusCode, 401)
  t.same(seen, [], 'the route\'s hook did not run for anonymous requests')
  const headers = { authorization: `Bearer ${GOOD}` }
  t.equal((await app.inject({ url: '/cart/items', headers })).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: '/cart/items', headers })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/cart/items', headers })).statusCode, 200)
  t.same(seen, [CREDENTIAL, CREDENTIAL, CREDENTIAL], 'the route\'s hook runs after the credential is set')
  t.equal(own.length, 1, 'the route\'s hook array is not modified')
})

t.test('an instance-level onRequest hook still runs first, as in any Fastify app', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-blocked'] !== undefined) return reply.code(429).send({ blocked: true })
  })
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
  await app.ready()
  t.equal((await app.inject({ url: '/cart/items', headers: { 'x-blocked': '1' } })).statusCode, 429)
})

t.test('commands without auth and routes without svc see no credential and no check', async (t) => {
  const verify = countingVerifier()
  const { app, handled } = await shop(verify)
  for (const url of ['/catalog', '/health']) {
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${GOOD}`, 'Basic abc']) {
      const response = await app.inject({ url, headers: withAuthorization(authorization) })
      t.equal(response.statusCode, 200, `${url} with ${authorization ?? 'no header'}`)
      t.equal(response.headers['www-authenticate'], undefined)
    }
  }
  t.same((await app.inject({ url: '/catalog', headers: { authorization: `Bearer ${GOOD}` } })).json(), { credential: null })
  t.same(verify.calls, [], 'the verifier never ran')
  t.equal(handled.filter((name) => name === 'cart.items').length, 0)
})

t.test('only the routes of commands requiring auth carry the hook', async (t) => {
  const { app } = await shop()
  const table = app.printRoutes({ includeHooks: true, commonPrefix: false })
  const routes = [...table.matchAll(/^\W*(\/\S*) \((\w+)\)\n(?:[│ ]*• \((\w+)\) \[(.*)\]\n)*/gmu)]
  const carrying = (hook: string): string[] => routes.filter((match) => match[0].includes(hook)).map((match) => `${match[2]} ${match[1]}`).sort()
  // The plugin's own event stream needs a credential like a command with auth: 'required'.
  t.same(carrying('svcBearerAuth'), ['GET /cart/items', 'GET /svc/events', 'HEAD /cart/items'])
  // The plugin's endpoints that act check the request's origin first.
  t.same(carrying('svcOriginCheck'), ['GET /svc/events', 'POST /svc/execute', 'POST /svc/pipeline'])
  t.equal(table.match(/onRequest/g)?.length, 5, 'no other route has an onRequest hook')
})

t.test('commands without auth and routes without svc answer exactly as without the plugin', async (t) => {
  const routes = (app: FastifyInstance, withSvc: boolean): void => {
    const svc = (description: string) => (withSvc ? { svc: { description } } : {})
    app.get('/catalog', { ...svc('The catalogue'), onRequest: async (request) => { request.log.debug('own hook') } }, async (request) => ({ q: request.query, auth: request.headers.authorization ?? null }))
    app.post('/catalog', { ...(withSvc ? { svc: { description: 'Add a product', name: 'catalog.add' } } : {}), schema: { body: { type: 'object', properties: { sku: { type: 'string' } } } } }, async (request) => request.body)
    app.get('/health', async () => ({ ok: true }))
  }
  const plain = Fastify()
  routes(plain, false)
  await plain.ready()
  const withPlugin = Fastify()
  await withPlugin.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
  routes(withPlugin, true)
  withPlugin.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'guarded')
  await withPlugin.ready()

  const requests = [
    { method: 'GET', url: '/catalog?q=shoes' },
    { method: 'GET', url: '/catalog', headers: { authorization: 'Bearer wrong' } },
    { method: 'HEAD', url: '/catalog' },
    { method: 'POST', url: '/catalog', headers: { 'content-type': 'application/json' }, payload: '{"sku":"A1"}' },
    { method: 'POST', url: '/catalog', headers: { 'content-type': 'application/json' }, payload: '{"sku":' },
    { method: 'POST', url: '/catalog', headers: { 'content-type': 'application/json' }, payload: '{"sku":5}' },
    { method: 'GET', url: '/health' },
    { method: 'DELETE', url: '/health' }
  ] as const
  for (const request of requests) {
    const [expected, actual] = await Promise.all([plain.inject(request), withPlugin.inject(request)])
    const label = `${request.method} ${request.url}`
    t.equal(actual.statusCode, expected.statusCode, `${label}: status`)
    t.equal(actual.body, expected.body, `${label}: body`)
    const { date: _d1, ...expectedHeaders } = expected.headers
    const { date: _d2, ...actualHeaders } = actual.headers
    t.same(actualHeaders, expectedHeaders, `${label}: headers`)
  }
})

t.test('the realm is the manifest name as a valid quoted-string', async (t) => {
  for (const [name, realm] of [
    ['Shop "North" \\ South', 'Shop \\"North\\" \\\\ South'],
    ['Магазин', '%D0%9C%D0%B0%D0%B3%D0%B0%D0%B7%D0%B8%D0%BD'],
    ['Café\nBar', 'Caf%C3%A9%0ABar'],
    ['Lone \ud800 surrogate', 'Lone %EF%BF%BD surrogate']
  ]) {
    const app = Fastify()
    await app.register(svcManifest, { ...requiredOptions, name, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
    app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
    await app.ready()
    const response = await app.inject({ url: '/cart/items', headers: { authorization: 'Bearer wrong' } })
    t.equal(response.statusCode, 401, name)
    t.equal(response.headers['www-authenticate'], `Bearer realm="${realm}", error="invalid_token"`, name)
    t.equal(response.json().code, 'FST_SVC_UNAUTHORIZED', name)
  }
})

/** `app.ready()` as a Promise (Fastify types it as a thenable instance). */
function ready (app: FastifyInstance): Promise<unknown> {
  return Promise.resolve(app.ready())
}

t.test('fails closed: a command requires auth and the plugin has no auth option', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
  app.post('/cart/items', { svc: { description: 'Add', name: 'cart.add', auth: 'required' } }, async () => 'ok')
  app.get('/catalog', { svc: { description: 'Catalogue' } }, async () => 'ok')
  await t.rejects(ready(app), {
    code: 'FST_SVC_AUTH_NOT_CONFIGURED',
    statusCode: 500,
    message: 'Auth is not configured: GET /cart/items, POST /cart/items require auth but the plugin has no "auth" option. Add auth: { type: \'bearer\', description, verify }.'
  })
})

t.test('fails closed: auth without verify and without @fastify/jwt', async (t) => {
  for (const withCommand of [true, false]) {
    const app = Fastify()
    await app.register(svcManifest, { ...requiredOptions, auth: BEARER_AUTH })
    if (withCommand) app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
    await t.rejects(ready(app), {
      code: 'FST_SVC_AUTH_NOT_CONFIGURED',
      message: /"auth" has no verify function and @fastify\/jwt is not registered/
    }, withCommand ? 'with a command requiring auth' : 'even with no command requiring auth: the manifest would promise it')
  }
})

t.test('no auth option and no command requiring auth: nothing to configure', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/catalog', { svc: { description: 'Catalogue' } }, async () => 'ok')
  await app.ready()
  t.equal((await app.inject({ url: '/catalog' })).statusCode, 200)
})

t.test('auth types other than bearer are refused at startup', async (t) => {
  for (const type of ['basic', 'Bearer', 'apiKey']) {
    const app = Fastify()
    app.register(svcManifest, { ...requiredOptions, auth: { type, description: 'x', verify: () => true } } as never)
    await t.rejects(ready(app), { code: 'FST_SVC_INVALID_OPTION', message: /"auth\.type" must be "bearer"/ }, type)
  }
})

t.test('a custom error handler sees the 401 error, and the challenge header is already on the reply', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, auth: { ...BEARER_AUTH, verify: countingVerifier() } })
  app.setErrorHandler(async (error: Error & { code?: string, statusCode?: number }, _request, reply) => {
    return reply.send({ problem: error.code, status: error.statusCode })
  })
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async () => 'ok')
  await app.ready()
  const response = await app.inject({ url: '/cart/items', headers: { authorization: 'Bearer wrong' } })
  t.equal(response.statusCode, 401)
  t.equal(response.headers['www-authenticate'], REFUSED.www)
  t.same(response.json(), { problem: 'FST_SVC_UNAUTHORIZED', status: 401 })
})
