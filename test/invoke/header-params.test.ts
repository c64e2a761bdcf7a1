// `schema.headers` properties are params in a fourth place, `header`: a route that needs a header (the
// connection string of a postgres admin API, say) is callable from its manifest entry alone.
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

const PgHeaders = Type.Object({
  pg: Type.String({ description: 'Connection string', minLength: 1 }),
  'X-Request-Source': Type.Optional(Type.String({ enum: ['agent', 'ui'] })),
  authorization: Type.Optional(Type.String()),
  Cookie: Type.Optional(Type.String()),
  'content-type': Type.Optional(Type.String()),
  'Proxy-Authorization': Type.Optional(Type.String())
}, { required: ['pg', 'authorization'] })

/** Shaped like postgres-meta: every route needs the `pg` header, and an app-wide hook reads it. */
function pgRoutes (app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    // The app keeps the connection it was asked for on the request, as postgres-meta does.
    (request as unknown as { pgConnection?: unknown }).pgConnection = request.headers.pg
  })
  app.get('/tables/:id', {
    schema: {
      summary: 'A table',
      headers: PgHeaders,
      params: Type.Object({ id: Type.Integer() }),
      querystring: Type.Object({ includeColumns: Type.Optional(Type.Boolean()) })
    },
    svc: { name: 'tables.get', examples: [{ params: { id: 1, pg: 'postgres://db' } }] }
  }, async (request) => ({
    id: (request.params as { id: number }).id,
    pg: request.headers.pg,
    hooked: (request as unknown as { pgConnection?: unknown }).pgConnection,
    source: request.headers['x-request-source'] ?? null,
    authorization: request.headers.authorization ?? null
  }))
  app.post('/query', {
    schema: { summary: 'Run a query', headers: Type.Object({ pg: Type.String() }), body: Type.Object({ query: Type.String() }) },
    svc: { name: 'query.run' }
  }, async (request) => ({ pg: request.headers.pg, query: (request.body as { query: string }).query }))
}

t.test('the manifest: header params after the path params, by the declared name; credentials and entity headers are none', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, pgRoutes))
  t.same(manifest.commands['tables.get'].params, {
    id: { type: 'number', required: true },
    pg: { type: 'string', required: true, description: 'Connection string', minLength: 1 },
    'X-Request-Source': { type: 'string', required: false, enum: ['agent', 'ui'] },
    includeColumns: { type: 'boolean', required: false }
  })
  t.same(Object.keys(manifest.commands['query.run'].params ?? {}), ['pg', 'query'])
})

t.test('execute sends header params as request headers: the route and the app\'s hooks see the value given', async (t) => {
  const app = await readyApp(t, {}, pgRoutes)
  const response = await execute(app, 'tables.get', { id: 7, pg: 'postgres://given', 'X-Request-Source': 'agent' }, { pg: 'postgres://callers-own', authorization: 'Bearer t' })
  t.same(response.json(), { ok: true, result: { id: 7, pg: 'postgres://given', hooked: 'postgres://given', source: 'agent', authorization: 'Bearer t' } })
  const lowerCase = await execute(app, 'tables.get', { id: 7, pg: 'postgres://given', 'x-request-source': 'ui' })
  t.match(lowerCase.json(), { ok: true, result: { source: 'ui' } }, 'a header param\'s name is case-insensitive, as the header\'s')
  const callersOwn = await execute(app, 'tables.get', { id: 7 }, { pg: 'postgres://callers-own' })
  t.match(callersOwn.json(), { ok: true, result: { pg: 'postgres://callers-own' } }, 'left out, the caller\'s own header still reaches the route')
  const body = await execute(app, 'query.run', { pg: 'postgres://given', query: 'select 1' })
  t.same(body.json(), { ok: true, result: { pg: 'postgres://given', query: 'select 1' } }, 'beside a JSON body')
})

t.test('the route\'s validation decides; values a header cannot carry are refused before it runs', async (t) => {
  const app = await readyApp(t, {}, pgRoutes)
  const missing = await execute(app, 'tables.get', { id: 7 })
  t.equal(missing.statusCode, 400)
  t.match(missing.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /headers must have required property 'pg'/ } })
  const object = await execute(app, 'tables.get', { id: 7, pg: { host: 'db' } })
  t.match(object.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: 'Header param "pg" must be a string, number or boolean; got an object.' } })
  const injected = await execute(app, 'tables.get', { id: 7, pg: 'postgres://db\r\nx-admin: 1' })
  t.match(injected.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /Header param "pg" holds a character a header cannot carry/ } })
  const long = await execute(app, 'tables.get', { id: 7, pg: 'x'.repeat(20_000) })
  t.match(long.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /Header param "pg" makes the request's URL and headers longer than 16384 characters/ } })
  const together = await execute(app, 'tables.get', { id: 7, pg: 'x'.repeat(9_000), note: 'y'.repeat(9_000) })
  t.match(together.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /Param "note" makes the request's URL and headers longer than 16384 characters/ } }, 'headers and query string count together')
})

t.test('pipeline: a header param may come from an earlier result', async (t) => {
  const app = await readyApp(t, {}, pgRoutes)
  const response = await pipeline(app, {
    steps: [
      { command: 'query.run', params: { pg: 'postgres://first', query: 'select 1' }, as: 'first' },
      { command: 'tables.get', params: { id: 2, pg: '$first.pg' } }
    ]
  }, { authorization: 'Bearer t' })
  t.match(response.json(), { ok: true, results: [{ ok: true }, { ok: true, result: { id: 2, pg: 'postgres://first' } }] })
})

t.test('an example\'s header params are checked against the route\'s headers schema', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/tables', { schema: { summary: 'Tables', headers: PgHeaders }, svc: { examples: [{ params: { pg: '' } }] } }, async () => [])
  }), { code: 'FST_SVC_INVALID_EXAMPLE', message: /headers\/pg must NOT have fewer than 1 characters/ })
  await t.resolves(readyApp(t, {}, (app) => {
    app.get('/tables', { schema: { summary: 'Tables', headers: PgHeaders }, svc: { examples: [{ title: 'The caller sends pg', params: {} }] } }, async () => [])
  }), 'an example without header params leaves the headers to the caller')
})

t.test('a headers schema without properties, or with only headers that are never params, adds none', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/a', { schema: { summary: 'A', headers: { type: 'object' } }, svc: {} }, async () => ({}))
    app.get('/b', { schema: { summary: 'B', headers: Type.Object({ Authorization: Type.String(), host: Type.Optional(Type.String()) }) }, svc: {} }, async () => ({}))
    app.get('/c', { schema: { summary: 'C', headers: Type.Object({ 'x-tenant': Type.String() }) }, svc: { params: Type.Object({ q: Type.String() }) } }, async () => ({}))
    app.get('/d', { schema: { summary: 'D', headers: { type: 'object', properties: { 'x-trace': { type: 'string' } } } }, svc: {} }, async () => ({}))
  }))
  t.same(manifest.commands.a, { description: 'A' })
  t.same(manifest.commands.b, { description: 'B' })
  t.same(manifest.commands.c.params, { 'x-tenant': { type: 'string', required: true }, q: { type: 'string', required: true } }, 'beside svc.params too')
  t.same(manifest.commands.d.params, { 'x-trace': { type: 'string', required: false } }, 'a headers schema that requires nothing')
})

t.test('an app hook that fills in a default header on every request, the execute request too: the param still wins', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.addHook('onRequest', async (request) => {
      request.headers.pg ??= 'postgres://default'
    })
    app.get('/schemas', { schema: { summary: 'Schemas', headers: Type.Object({ pg: Type.String() }) }, svc: {} }, async (request) => ({ pg: request.headers.pg }))
  })
  t.same((await execute(app, 'schemas', { pg: 'postgres://given' })).json(), { ok: true, result: { pg: 'postgres://given' } })
  t.same((await execute(app, 'schemas', {})).json(), { ok: true, result: { pg: 'postgres://default' } })
})
