import { Type } from '@sinclair/typebox'
import { S } from 'fluent-json-schema'
import type { FastifySchema } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'

// svc.examples are checked at ready() by the route's own validators. These are the routes whose
// validation is not the default one: their own compiler, a compiler that fails, `query` for `querystring`,
// a fluent schema, a body schema on a DELETE.

const refused = { code: 'FST_SVC_INVALID_EXAMPLE' }

t.test('the route\'s own validatorCompiler judges its examples, whatever it answers', async (t) => {
  const answersError = () => (data: unknown) => (data as { q?: string }).q === 'ok' ? { value: data } : { error: new Error('q must be ok') }
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/a', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } }, validatorCompiler: answersError, svc: { description: 'A', examples: [{ params: { q: 'no' } }] } }, async () => ({}))
  }), { ...refused, message: /command GET \/a \(svc\.examples\[0\]\): querystring q must be ok\./ })
  const answersFalse = () => () => false
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/b', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } }, validatorCompiler: answersFalse, svc: { description: 'B', examples: [{ title: 'Any', params: {} }] } }, async () => ({}))
  }), { ...refused, message: /\(svc\.examples\[0\] "Any"\): querystring is invalid/ })
  const throws = () => { throw new Error('no compiler today') }
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/c', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } }, validatorCompiler: throws, svc: { description: 'C', examples: [{ params: {} }] } }, async () => ({}))
  }), { message: /no compiler today/ })
  const app = await readyApp(t, {}, (app) => {
    app.get('/d', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } }, validatorCompiler: answersError, svc: { description: 'D', examples: [{ params: { q: 'ok' } }] } }, async () => ({}))
  })
  t.same((await fetchManifest(app)).commands.d.examples, [{ params: { q: 'ok' } }], 'an example the route\'s own compiler accepts is served')
})

t.test('query, fluent schemas, path params and a DELETE body schema are read as the call places them', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    // Fastify takes `query` for `querystring`; its types name only the latter.
    const schema = { query: Type.Object({ limit: Type.Integer({ maximum: 50 }) }) } as FastifySchema
    app.get('/q', { schema, svc: { description: 'Q', examples: [{ params: { limit: 999 } }] } }, async () => ({}))
  }), { ...refused, message: /querystring\/limit must be <= 50/ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.post('/f', { schema: { body: S.object().prop('email', S.string().format('email')).required(['email']) }, svc: { description: 'F', examples: [{ params: { email: 'nope' } }] } }, async () => ({}))
  }), { ...refused, message: /body\/email must match format "email"/ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/items/:id', { svc: { description: 'Item', examples: [{ params: {} }] } }, async () => ({}))
  }), { ...refused, message: /path param "id" missing/ })
  const app = await readyApp(t, {}, (app) => {
    app.delete('/g', { schema: { body: Type.Object({ x: Type.String() }) }, svc: { description: 'G', examples: [{ params: {} }] } }, async () => ({}))
  })
  t.same((await fetchManifest(app)).commands.g.examples, [{ params: {} }], 'a DELETE call through execute sends no body without body params, so the route\'s body schema does not judge the example')
})
