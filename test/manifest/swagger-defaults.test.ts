import swagger from '@fastify/swagger'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/** A route documented for @fastify/swagger needs only `svc: {}` (DESIGN §4, friendly defaults). */

const documented = {
  description: 'Search the catalogue by words',
  summary: 'Search',
  tags: ['catalog'],
  querystring: Type.Object({ q: Type.String() }),
  response: { 200: Type.Array(Type.String()) }
}

t.test('svc: {} takes the description and tags of the route schema, and @fastify/swagger reads the same', async (t) => {
  const app = Fastify()
  await app.register(swagger, { openapi: { info: { title: 'Shop', version: '1.0.0' } } })
  await app.register(svcManifest, requiredOptions)
  app.get('/search', { schema: documented, svc: {} }, async () => [])
  await app.ready()
  const manifest = await fetchManifest(app)
  t.same(manifest.commands.search, {
    description: 'Search the catalogue by words',
    params: { q: { type: 'string', required: true } },
    returns: { type: 'array', items: { type: 'string' } },
    tags: ['catalog']
  })
  const operation = (app.swagger() as unknown as { paths: Record<string, Record<string, { description: string, tags: string[] }>> }).paths['/search'].get
  t.equal(operation.description, manifest.commands.search.description)
  t.same(operation.tags, manifest.commands.search.tags)
})

t.test('the summary stands in when the schema has no description', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/a', { schema: { summary: 'Summary only' }, svc: {} }, async () => ({}))
    app.get('/b', { schema: { summary: 'Summary', description: ' ' }, svc: {} }, async () => ({}))
  }))
  t.equal(manifest.commands.a.description, 'Summary only')
  t.equal(manifest.commands.b.description, 'Summary', 'a blank description is no description')
})

t.test('svc fields win over the schema\'s', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/search', { schema: documented, svc: { description: 'For agents', tags: ['agents'] } }, async () => [])
  }))
  t.equal(manifest.commands.search.description, 'For agents')
  t.same(manifest.commands.search.tags, ['agents'])
})

t.test('without any description (and requireDescriptions), the error says where one may come from', async (t) => {
  await t.rejects(readyApp(t, { requireDescriptions: true }, (app) => {
    app.get('/a', { schema: { tags: ['x'] }, svc: {} }, async () => ({}))
  }), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /route GET \/a \(svc\.description\) needs a non-empty "description" string\. Set svc\.description, or give the route schema a description or summary\./ })
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/a', { schema: { description: 'Documented' }, svc: { description: '' } }, async () => ({}))
  }), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /needs a non-empty "description" string\.$/ }, 'an empty svc.description is not replaced')
})

t.test('schema.tags that are not non-empty strings are refused, naming schema.tags', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/a', { schema: { description: 'A', tags: ['ok', ''] }, svc: {} }, async () => ({}))
  }), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /route GET \/a: schema\.tags must be an array of non-empty strings \(or set svc\.tags\)/ })
})
