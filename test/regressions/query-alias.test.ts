import type { FastifySchema } from 'fastify'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'

/**
 * Defect: Fastify validates `schema.query` as the query string (it aliases it to `querystring` after the
 * `onRoute` hooks), but the manifest read only `schema.querystring`: a route whose `q` was required served a
 * command without params, and `svc.params` beside `schema.query` failed with Fastify's own error.
 */

const QUERY = { type: 'object', properties: { q: { type: 'string', description: 'Text' }, limit: { type: 'integer', default: 10 } }, required: ['q'] } as const
/** A new route schema each time: Fastify adds `querystring` to the one it is given. Its types leave `query` out; JavaScript apps use it. */
function withQuery (): FastifySchema {
  return { query: QUERY } as unknown as FastifySchema
}

t.test('schema.query gives the params, as schema.querystring does', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search' }, schema: withQuery() }, async (request) => request.query)
  })
  const manifest = await fetchManifest(app)
  t.same(manifest.commands.search.params, {
    q: { type: 'string', required: true, description: 'Text' },
    limit: { type: 'number', required: false, default: 10 }
  })
  const missing = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'search', params: {} } })
  t.equal(missing.statusCode, 400, 'the route still validates it')
  const found = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'search', params: { q: 'tea' } } })
  t.equal(found.statusCode, 200)
  t.same(found.json().result, { q: 'tea', limit: 10 }, 'and execute puts it in the query string')
})

t.test('svc.params beside schema.query is refused with the plugin\'s code, naming schema.query', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search', params: QUERY }, schema: withQuery() }, async () => [])
  }), { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /route GET \/search has both svc\.params and schema\.query\. .*remove schema\.query/ })
})
