import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

const GOOD = 'good-token'
const BODY_LIMIT = 1024

interface Spies {
  app: FastifyInstance
  parsed: number
  preParsing: number
  handled: number
}

/**
 * `POST /cart/items` requires auth and validates its body. A spy JSON parser (delegating to Fastify's own)
 * and a `preParsing` hook count how far a request got into body handling.
 */
async function cart (): Promise<Spies> {
  const app = Fastify({ bodyLimit: BODY_LIMIT })
  const spies: Spies = { app, parsed: 0, preParsing: 0, handled: 0 }
  await app.register(svcManifest, {
    ...requiredOptions,
    auth: { type: 'bearer', description: 'Token', verify: (token) => token === GOOD && { sub: 'alice' } }
  })
  const defaultJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    spies.parsed++
    defaultJson(request, body as string, done)
  })
  app.post('/cart/items', {
    svc: { description: 'Add an item', params: Type.Object({ sku: Type.String() }), auth: 'required' },
    preParsing: async (_request, _reply, payload) => {
      spies.preParsing++
      return payload
    }
  }, async (request) => {
    spies.handled++
    return request.body
  })
  await app.ready()
  return spies
}

function post (app: FastifyInstance, payload: string, authorization?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (authorization !== undefined) headers.authorization = authorization
  return app.inject({ method: 'POST', url: '/cart/items', headers, payload })
}

t.test('the spies see a valid authenticated request', async (t) => {
  const spies = await cart()
  const response = await post(spies.app, '{"sku":"A1"}', `Bearer ${GOOD}`)
  t.equal(response.statusCode, 200)
  t.same(response.json(), { sku: 'A1' })
  t.same({ parsed: spies.parsed, preParsing: spies.preParsing, handled: spies.handled }, { parsed: 1, preParsing: 1, handled: 1 })
})

for (const [label, payload, statusWithToken, codeWithToken] of [
  ['invalid JSON', '{"sku":', 400, 'FST_ERR_CTP_INVALID_JSON_BODY'],
  ['a body that fails validation (no sku)', '{}', 400, 'FST_ERR_VALIDATION'],
  [`a body over bodyLimit (${BODY_LIMIT} bytes)`, JSON.stringify({ sku: 'x'.repeat(BODY_LIMIT * 4) }), 413, 'FST_ERR_CTP_BODY_TOO_LARGE']
] as const) {
  t.test(`anonymous POST with ${label}: 401, and the body is never read`, async (t) => {
    const spies = await cart()
    for (const authorization of [undefined, 'Bearer wrong', 'Basic abc']) {
      const response = await post(spies.app, payload, authorization)
      t.equal(response.statusCode, 401, `${authorization ?? 'no header'}: 401, not ${statusWithToken}`)
      t.equal(response.json().code, 'FST_SVC_UNAUTHORIZED')
    }
    t.same({ parsed: spies.parsed, preParsing: spies.preParsing, handled: spies.handled }, { parsed: 0, preParsing: 0, handled: 0 },
      'neither preParsing, the content-type parser nor the handler ran')

    const authenticated = await post(spies.app, payload, `Bearer ${GOOD}`)
    t.equal(authenticated.statusCode, statusWithToken, 'with a token, the body error is reported as usual')
    t.equal(authenticated.json().code, codeWithToken)
    t.equal(spies.handled, 0)
  })
}

t.test('an anonymous request announcing a huge body is refused before it is read', async (t) => {
  const spies = await cart()
  const response = await spies.app.inject({
    method: 'POST',
    url: '/cart/items',
    headers: { 'content-type': 'application/json', 'content-length': String(BODY_LIMIT * 1000) },
    payload: '{"sku":"A1"}'
  })
  t.equal(response.statusCode, 401)
  t.same({ parsed: spies.parsed, preParsing: spies.preParsing, handled: spies.handled }, { parsed: 0, preParsing: 0, handled: 0 })
})
