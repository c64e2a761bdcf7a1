// A route whose body is not an object with properties (an array, a string, a map) is a command with one
// param, `body`, that carries the whole body; execute, pipeline and MCP send its value as the JSON body.
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

const Tag = Type.Object({ name: Type.String({ minLength: 1 }), color: Type.Optional(Type.String()) })

function adminRoutes (app: FastifyInstance): void {
  app.post('/tags/bulk', {
    schema: {
      summary: 'Create tags in bulk',
      querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
      body: Type.Array(Tag, { minItems: 1, description: 'The tags to create' })
    },
    svc: { examples: [{ title: 'Two tags', params: { body: [{ name: 'a' }, { name: 'b' }] } }] }
  }, async (request) => ({ created: (request.body as unknown[]).length, dryRun: (request.query as { dryRun?: boolean }).dryRun ?? false }))
  app.put('/notes/:id', {
    schema: { summary: 'Replace a note', body: Type.String({ maxLength: 20 }) },
    svc: { name: 'notes.replace' }
  }, async (request) => ({ id: (request.params as { id: string }).id, text: request.body }))
  app.post('/events/raw', {
    schema: { summary: 'Store a raw event', body: Type.Unknown() },
    svc: { name: 'events.raw' }
  }, async (request) => ({ stored: request.body ?? null }))
  app.patch('/limits', {
    schema: { summary: 'Set limits', body: Type.Record(Type.String(), Type.Integer()) },
    svc: { name: 'limits.set' }
  }, async (request) => request.body)
}

t.test('the manifest: one param "body" after the path and query params, required unless any value goes', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, adminRoutes))
  t.same(manifest.commands['tags.bulk'].params, {
    dryRun: { type: 'boolean', required: false },
    body: {
      type: 'array',
      required: true,
      description: 'The tags to create',
      minItems: 1,
      items: { type: 'object', properties: { name: { type: 'string', required: true, minLength: 1 }, color: { type: 'string', required: false } } }
    }
  })
  t.same(manifest.commands['notes.replace'].params, { id: { type: 'string', required: true }, body: { type: 'string', required: true, maxLength: 20 } })
  t.same(manifest.commands['events.raw'].params, { body: { type: 'any', required: false } })
  t.same(manifest.commands['limits.set'].params, { body: { type: 'object', required: true } })
  t.same(manifest.commands['tags.bulk'].examples, [{ title: 'Two tags', params: { body: [{ name: 'a' }, { name: 'b' }] } }], 'the example passed the route\'s validation')
})

t.test('execute sends the param\'s value as the whole body; the other params go to the URL', async (t) => {
  const app = await readyApp(t, {}, adminRoutes)
  t.same((await execute(app, 'tags.bulk', { body: [{ name: 'a' }, { name: 'b', color: 'red' }], dryRun: true })).json(), { ok: true, result: { created: 2, dryRun: true } })
  t.same((await execute(app, 'notes.replace', { id: '7', body: 'hello' })).json(), { ok: true, result: { id: '7', text: 'hello' } })
  t.same((await execute(app, 'limits.set', { body: { daily: 5 } })).json(), { ok: true, result: { daily: 5 } })
  t.same((await execute(app, 'events.raw', { body: [1, { a: null }] })).json(), { ok: true, result: { stored: [1, { a: null }] } })
  t.same((await execute(app, 'events.raw', {})).json(), { ok: true, result: { stored: null } }, 'left out, no body is sent')
})

t.test('the route\'s validation still decides: a missing or wrong body is INVALID_PARAMS', async (t) => {
  const app = await readyApp(t, {}, adminRoutes)
  const missing = await execute(app, 'tags.bulk', {})
  t.equal(missing.statusCode, 400)
  t.match(missing.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /body/ } })
  const wrong = await execute(app, 'tags.bulk', { body: [] })
  t.match(wrong.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: /must NOT have fewer than 1 items/ } })
  const extra = await execute(app, 'tags.bulk', { body: [{ name: 'a' }], name: 'b' })
  t.same(extra.json(), { ok: true, result: { created: 1, dryRun: false } }, 'an undeclared param goes to the query string, not into the body')
})

t.test('pipeline: a step\'s body may come from an earlier result', async (t) => {
  const app = await readyApp(t, {}, adminRoutes)
  const response = await pipeline(app, {
    steps: [
      { command: 'events.raw', params: { body: [{ name: 'x' }, { name: 'y' }] }, as: 'raw' },
      { command: 'tags.bulk', params: { body: '$raw.stored' } }
    ]
  })
  t.same(response.json(), { ok: true, results: [{ command: 'events.raw', ok: true, result: { stored: [{ name: 'x' }, { name: 'y' }] } }, { command: 'tags.bulk', ok: true, result: { created: 2, dryRun: false } }] })
})

t.test('a query or path param named "body" beside a whole body is a startup error naming both', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.post('/import', { schema: { summary: 'Import', querystring: Type.Object({ body: Type.String() }), body: Type.Array(Type.String()) }, svc: {} }, async () => ({}))
  }), { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /route POST \/import: its body schema is not an object with properties, so the whole body is the param "body", and POST \/import schema\.querystring also declares a param "body"\. Rename that param/ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.put('/docs/:body', { schema: { summary: 'Doc', body: Type.String() }, svc: {} }, async () => ({}))
  }), { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /PUT \/docs\/:body URL also declares a param "body"/ })
})

t.test('an example whose whole body the route refuses is a startup error', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.post('/tags/bulk', { schema: { summary: 'Bulk', body: Type.Array(Tag, { minItems: 1 }) }, svc: { examples: [{ params: { body: [] } }] } }, async () => ({}))
  }), { code: 'FST_SVC_INVALID_EXAMPLE', message: /body must NOT have fewer than 1 items/ })
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.post('/tags/bulk', {
      schema: { summary: 'Bulk', body: Type.Array(Tag) },
      svc: { examples: [{ params: { body: [{ name: 'a' }], verbose: true } }] }
    }, async () => ({}))
  }))
  t.same(manifest.commands['tags.bulk'].examples, [{ params: { body: [{ name: 'a' }], verbose: true } }], 'an undeclared param goes to the query string, not into the array body')
})
