import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

const cursorPage = Type.Object({ cursor: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ default: 20, maximum: 100 })) })
const offsetPage = Type.Object({ offset: Type.Optional(Type.Integer({ default: 0 })), limit: Type.Optional(Type.Integer({ default: 10 })) })

t.test('paginated: true when every setting is Surf\'s, else the settings that say how to walk the pages', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/tea', { svc: { description: 'Teas', paginated: true }, schema: { querystring: cursorPage } }, async () => ({ items: [] }))
    app.get('/coffee', { svc: { description: 'Coffees', paginated: { style: 'cursor', defaultLimit: 20, maxLimit: 100 } }, schema: { querystring: cursorPage } }, async () => ({ items: [] }))
    app.get('/articles', {
      svc: { description: 'Articles', params: offsetPage, paginated: { style: 'offset', defaultLimit: 10, maxLimit: 50, items: 'articles', total: 'articlesCount' } }
    }, async () => ({ articles: [], articlesCount: 0 }))
    app.get('/events', { svc: { description: 'Events', paginated: { next: 'after', maxLimit: 500 } }, schema: { querystring: cursorPage } }, async () => ({ items: [] }))
    app.get('/plain', { svc: { description: 'Not paginated', paginated: false }, schema: { querystring: cursorPage } }, async () => ({ items: [] }))
  })
  const { commands } = await fetchManifest(app)
  t.equal(commands.tea.paginated, true)
  t.equal(commands.coffee.paginated, true, 'Surf\'s settings spelled out are still true')
  t.same(commands.articles.paginated, { style: 'offset', defaultLimit: 10, maxLimit: 50, items: 'articles', total: 'articlesCount' })
  t.same(Object.keys(commands.articles.paginated as object), ['style', 'defaultLimit', 'maxLimit', 'items', 'total'])
  t.same(commands.events.paginated, { style: 'cursor', defaultLimit: 20, maxLimit: 500, next: 'after' })
  t.notOk(Object.hasOwn(commands.plain, 'paginated'))
  t.same(Object.keys(commands.tea), ['description', 'params', 'paginated'])
})

t.test('with rest names, a paginated command is a list, whatever object a page is', async (t) => {
  const page = Type.Object({ items: Type.Array(Type.String()), nextCursor: Type.Optional(Type.String()) })
  const app = await readyApp(t, { names: { style: 'rest' } }, (app) => {
    app.get('/teas', { svc: { description: 'Teas', paginated: true }, schema: { querystring: cursorPage, response: { 200: page } } }, async () => ({ items: [] }))
    app.get('/health', { svc: { description: 'Health' }, schema: { response: { 200: page } } }, async () => ({ items: [] }))
  })
  const { commands } = await fetchManifest(app)
  t.ok(commands['teas.list'], 'a page of teas: teas.list')
  t.ok(commands['health.get'], 'the same object, not paginated: health.get')
})

/** `ready()` of an app with one route `GET /x` carrying `svc` and `schema`. */
async function readyOne (svc: Record<string, unknown>, schema: Record<string, unknown> = {}): Promise<unknown> {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/x', { svc: { description: 'X', ...svc }, schema }, async () => ({}))
  try {
    await app.ready()
  } finally {
    await app.close()
  }
  return undefined
}

t.test('a paginated route without the params its pages are walked with is FST_SVC_INVALID_PAGINATION at ready()', async (t) => {
  await t.rejects(readyOne({ paginated: true }), {
    code: 'FST_SVC_INVALID_PAGINATION',
    message: /route GET \/x \(svc\.paginated, cursor style\) has no param "cursor" and "limit"\. Add them/
  })
  await t.rejects(readyOne({ paginated: { style: 'offset' } }, { querystring: Type.Object({ offset: Type.Integer() }) }), {
    code: 'FST_SVC_INVALID_PAGINATION',
    message: /offset style\) has no param "limit"\. Add it .* svc\.paginated: \{ style: 'cursor' \}/
  })
  await t.rejects(readyOne({ paginated: true }, { querystring: offsetPage }), {
    code: 'FST_SVC_INVALID_PAGINATION',
    message: /no param "cursor"\. .*style: 'offset'/
  })
})

t.test('every problem of a boot is listed, pagination among them', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/a', { svc: { description: 'A', paginated: true } }, async () => ({}))
  app.get('/b', { svc: { description: 'B', paginated: { style: 'offset' } } }, async () => ({}))
  await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_INVALID_ROUTES', message: /FST_SVC_INVALID_PAGINATION.*GET \/a[\s\S]*FST_SVC_INVALID_PAGINATION.*GET \/b/ })
  await app.close()
})

t.test('a bad svc.paginated is refused at ready(), naming the route and the field', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /route GET \/x: svc\.paginated must be true, or \{ style\?, defaultLimit\?/],
    [{ pageSize: 10 }, /svc\.paginated\.pageSize must be absent: svc\.paginated takes style, defaultLimit, maxLimit, items, next, total/],
    [{ style: 'page' }, /svc\.paginated\.style must be "cursor" or "offset"/],
    [{ defaultLimit: 0 }, /svc\.paginated\.defaultLimit must be a whole number of items, 1 or more/],
    [{ maxLimit: 2.5 }, /svc\.paginated\.maxLimit must be a whole number/],
    [{ defaultLimit: 50, maxLimit: 10 }, /svc\.paginated\.defaultLimit must be at most maxLimit \(10\); got 50/],
    [{ items: '' }, /svc\.paginated\.items must be the name of a field of the result/],
    [{ total: 3 }, /svc\.paginated\.total must be the name/],
    [{ style: 'offset', next: 'after' }, /svc\.paginated\.next must be absent with style "offset"/]
  ]
  for (const [value, message] of cases) {
    await t.rejects(readyOne({ paginated: value }, { querystring: cursorPage }), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message }, JSON.stringify(value))
  }
})
