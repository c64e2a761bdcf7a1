import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

// `config: { svcDispatch: 'inject' }` was read by the dispatcher from every route it saw, by `METHOD url`:
// a misspelt value was silently ignored, and two routes on one method and URL with different host
// constraints shared whatever either said. It is now read with the command's own route, and checked.

t.test('a value other than "inject" stops the start, naming the route', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(svcManifest, requiredOptions)
  app.get('/who', { config: { svcDispatch: 'injct' }, svc: { description: 'Who calls' } }, async () => ({}))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /route GET \/who: config\.svcDispatch must be "inject" \(or left out\); got "injct"/ })
})

t.test('routes on one method and URL, told apart by host: each command is called the way its own route asks', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    const handler = async (request: { raw: object }): Promise<{ request: string }> => ({ request: request.raw.constructor.name })
    app.get('/who', { constraints: { host: 'a.example' }, config: { svcDispatch: 'inject' }, svc: { name: 'who.a', description: 'Through app.inject()' } }, handler)
    app.get('/who', { constraints: { host: 'b.example' }, svc: { name: 'who.b', description: 'Through the router' } }, handler)
  })
  t.same((await execute(app, 'who.a', {}, { host: 'a.example' })).json().result, { request: 'Request' })
  t.same((await execute(app, 'who.b', {}, { host: 'b.example' })).json().result, { request: 'InnerRequest' })
})
