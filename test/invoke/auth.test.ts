import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

async function protectedApp (t: Test) {
  return await readyApp(t, {
    auth: { type: 'bearer', description: 'Demo token', verify: (token) => token === 'good' ? { sub: 'ada' } : null }
  }, (app) => {
    app.post('/orders', {
      svc: { name: 'orders.create', description: 'Place an order', params: Type.Object({ sku: Type.String() }), auth: 'required' }
    }, async (request) => ({ credential: request.svcCredential, body: request.body }))
    app.get('/open', { svc: { description: 'No token needed' } }, async (request) => ({ authorization: request.headers.authorization ?? null }))
  })
}

t.test('a protected command without, with a bad and with a good token', async (t) => {
  const app = await protectedApp(t)

  const anonymous = await execute(app, 'orders.create', { sku: 'mug' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"', 'the challenge is relayed')
  t.same(anonymous.json(), {
    ok: false,
    error: { code: 'UNAUTHORIZED', message: 'Missing bearer credential. Send "Authorization: Bearer <token>".', status: 401, cause: 'FST_SVC_UNAUTHORIZED' }
  })

  const bad = await execute(app, 'orders.create', { sku: 'mug' }, { authorization: 'Bearer bad' })
  t.equal(bad.statusCode, 401)
  t.equal(bad.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"')
  t.equal(bad.json().error.message, 'The bearer token was refused.')

  const good = await execute(app, 'orders.create', { sku: 'mug' }, { authorization: 'Bearer good' })
  t.equal(good.statusCode, 200)
  t.same(good.json(), { ok: true, result: { credential: { sub: 'ada' }, body: { sku: 'mug' } } }, 'the handler sees the credential')
  t.equal(good.headers['www-authenticate'], undefined)
})

t.test('two Authorization headers stay ambiguous through execute', async (t) => {
  const app = await protectedApp(t)
  const twice = await execute(app, 'orders.create', { sku: 'mug' }, { authorization: ['Bearer good', 'Bearer other'] })
  t.equal(twice.statusCode, 401, 'refused as the route refuses it')
  t.equal(twice.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"')
})

t.test('the plugin adds no credential of its own', async (t) => {
  const app = await protectedApp(t)
  t.same((await execute(app, 'open')).json().result, { authorization: null })
  t.same((await execute(app, 'open', {}, { authorization: 'Bearer good' })).json().result, { authorization: 'Bearer good' })
})
