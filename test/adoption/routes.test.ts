import swagger from '@fastify/swagger'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

t.test('svc: true is svc: {}; the HEAD twin is the same command', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/tags', { schema: { summary: 'Tags', deprecated: true }, svc: true }, async () => [])
    app.get('/tags/:tag', { schema: { summary: 'One tag', deprecated: true }, svc: { name: 'tag', deprecated: false } }, async () => ({}))
  }))
  t.same(Object.keys(manifest.commands), ['tag', 'tags'])
  t.notOk('deprecated' in manifest.commands.tag, 'svc.deprecated wins')
  t.match(manifest.commands.tags, { description: 'Tags', deprecated: true }, 'deprecated from the route schema')
})

t.test('examples are checked by the route\'s own validation, each param where a call places it', async (t) => {
  const good = await readyApp(t, {}, (app) => {
    app.addSchema({ $id: 'Limit', type: 'integer', minimum: 1, maximum: 100 })
    app.get('/articles/:slug/comments', {
      schema: { summary: 'Comments', params: Type.Object({ slug: Type.String({ minLength: 2 }) }), querystring: Type.Object({ limit: Type.Optional(Type.Ref('Limit')) }) },
      svc: { examples: [{ title: 'First page', params: { slug: 'hi', limit: 20 }, result: [] }] }
    }, async () => [])
    app.post('/articles', { schema: { summary: 'Write', body: Type.Object({ title: Type.String() }) }, svc: { examples: [{ params: { title: 'T' } }] } }, async () => ({}))
  })
  t.same((await fetchManifest(good)).commands['articles.comments'].examples, [{ title: 'First page', params: { slug: 'hi', limit: 20 }, result: [] }])
  t.match((await good.inject('/.well-known/svc.json')).body, '"examples":[{"title":"First page","params":{"slug":"hi","limit":20},"result":[]}]', 'served in the documented key order')
  const error = await Promise.resolve(readyApp(t, {}, (app) => {
    app.get('/articles/:slug/comments', {
      schema: { summary: 'Comments', params: Type.Object({ slug: Type.String({ minLength: 2 }) }), querystring: Type.Object({ limit: Type.Integer({ maximum: 100 }) }) },
      svc: { examples: [{ title: 'Too many', params: { slug: 'hi', limit: 500 } }, { params: { limit: 1 } }, { params: { slug: 'x', limit: 1 } }] }
    }, async () => [])
    app.post('/articles', { schema: { summary: 'Write', body: Type.Object({ title: Type.String() }) }, svc: { examples: [{ params: {} }] } }, async () => ({}))
    app.get('/custom', { schema: { summary: 'Custom', querystring: Type.Object({ q: Type.String() }) }, validatorCompiler: () => () => ({ error: new Error('custom says no') }), svc: { examples: [{ params: { q: 'x' } }] } }, async () => ({}))
    let compiled = 0
    app.get('/broken', { exposeHeadRoute: false, schema: { summary: 'Broken', querystring: Type.Object({ q: Type.String() }) }, validatorCompiler: () => { if (compiled++ > 0) throw new Error('cannot compile'); return () => true }, svc: { examples: [{ params: { q: 'x' } }] } }, async () => ({}))
  })).catch((caught: Error) => caught) as Error & { errors: Error[] }
  t.match(error, { code: 'FST_SVC_INVALID_ROUTES' })
  t.match(error.errors, [
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /command GET \/articles\/:slug\/comments \(svc\.examples\[0\] "Too many"\): querystring\/limit must be <= 100/ },
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /svc\.examples\[1\]\): path param "slug" missing/ },
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /svc\.examples\[2\]\): params\/slug must NOT have fewer than 2 characters/ },
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /POST \/articles .*body must have required property 'title'/ },
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /GET \/custom .*querystring custom says no/ },
    { code: 'FST_SVC_INVALID_EXAMPLE', message: /GET \/broken .*does not compile \(cannot compile\)/ }
  ])
})

const badExamples: [unknown, RegExp][] = [
  ['x', /svc\.examples must be an array/],
  [[1], /svc\.examples\[0\] must be an object/],
  [[{ params: {}, extra: 1 }], /svc\.examples\[0\]\.extra must be absent/],
  [[{ params: {}, title: '' }], /svc\.examples\[0\]\.title must be a non-empty string/],
  [[{ params: [] }], /svc\.examples\[0\]\.params must be an object/],
  [[{ params: { n: 1n } }], /svc\.examples\[0\]\.params must be JSON/],
  [[{ params: {}, result: () => 1 }], /svc\.examples\[0\]\.result must be JSON/]
]
for (const [examples, message] of badExamples) {
  t.test(`svc.examples ${String(examples)} is refused`, async (t) => {
    await t.rejects(readyApp(t, {}, (app) => { app.get('/x', { svc: { description: 'X', examples: examples as never } }, async () => ({})) }), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message })
  })
}

t.test('svc.deprecated must be a boolean', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => { app.get('/x', { svc: { description: 'X', deprecated: 'yes' as never } }, async () => ({})) }), { message: /svc\.deprecated must be a boolean/ })
  await t.rejects(readyApp(t, {}, (app) => { app.get('/x', { schema: { deprecated: 'yes' } as never, svc: { description: 'X' } }, async () => ({})) }), { message: /schema\.deprecated must be a boolean/ })
})

t.test('@fastify/swagger leaves the plugin\'s own routes out of the app\'s document', async (t) => {
  const app = Fastify()
  await app.register(swagger, { openapi: { info: { title: 'Shop', version: '1' } } })
  await app.register(svcManifest, { ...requiredOptions, mcp: true, events: { 'a.b': { description: 'E' } } })
  app.get('/items', { svc: { description: 'Items' } }, async () => [])
  await app.ready()
  t.same(Object.keys(app.swagger().paths ?? {}), ['/items'])
})
