import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { createManifestClient } from '../../lib/client/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// Edges of what the descriptors and the example checks read, each as a user would meet it.

t.test('a nullable field takes its default from its one other branch; a union of enums and consts is its enum', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/a', {
      schema: { querystring: { type: 'object', properties: { sort: { anyOf: [{ type: 'string', default: 'name' }, { type: 'null' }] } } } },
      svc: { description: 'A', returns: { anyOf: [{ enum: ['a', 'b'] }, { const: 'c' }, { type: 'null' }] } }
    }, async () => 'a')
  })
  const command = (await fetchManifest(app)).commands.a
  t.same(command.params?.sort, { type: 'string', required: false, default: 'name' })
  t.same(command.returns, { type: 'string', enum: ['a', 'b', 'c', null] })
})

t.test('an example param the command does not declare goes where a call would put it; a compiler\'s bare errors are named', async (t) => {
  // Fastify's Ajv removes additional properties before it checks them, as it would on a call.
  const app = await readyApp(t, {}, (app) => {
    app.post('/b', { schema: { body: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }, svc: { description: 'B', examples: [{ params: { a: 'x', extra: 1 } }] } }, async () => ({}))
  })
  t.same((await fetchManifest(app)).commands.b.examples, [{ params: { a: 'x', extra: 1 } }], 'accepted, and served as written')
  const bare = () => Object.assign(() => false, { errors: [{}] })
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/c', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } }, validatorCompiler: bare as never, svc: { description: 'C', examples: [{ params: {} }] } }, async () => ({}))
  }), { code: 'FST_SVC_INVALID_EXAMPLE', message: /querystring is invalid\. Fix the example/ })
})

t.test('watch on a layout-0.5.0 service that declares no channel says it declares none', async (t) => {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0' })
  const origin = await listening(t, app)
  const error = await createManifestClient({ url: `${origin}/.well-known/svc.json` }).watch('cart', 'a', {}, () => {}).then(() => undefined, (error: Error) => error)
  t.match(error, { code: 'SVC_CLIENT_NO_CHANNEL', message: /has no channel "cart": it declares none\./ })
})
