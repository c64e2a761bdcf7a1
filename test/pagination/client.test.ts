import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { createManifestClient } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { GREEN, pagedApp, TEAS } from '../helpers/pages.js'

async function all<T> (items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

t.test('a cursor walk sends back each page\'s nextCursor, with the caller\'s other params, until it is null', async (t) => {
  const { origin, calls } = await pagedApp(t)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  t.same(await all(client.paginate('teas', { limit: 3 })), TEAS)
  t.strictSame(calls, [{ limit: 3 }, { limit: 3, cursor: '3' }, { limit: 3, cursor: '6' }])
  calls.length = 0
  t.same(await all(client.paginate('teas', { green: true, limit: 1 })), [...GREEN])
  t.strictSame(calls, [{ green: true, limit: 1 }, { green: true, limit: 1, cursor: '1' }], 'the filter on every page')
  calls.length = 0
  t.same(await all(client.paginate('teas')), TEAS, 'one page: the route\'s own limit')
  t.equal(calls.length, 1)
})

t.test('an offset walk counts the items, and ends at a short page or at the total', async (t) => {
  const { origin, calls } = await pagedApp(t)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  t.same(await all(client.paginate('articles')), TEAS, 'pages of the manifest\'s defaultLimit')
  t.strictSame(calls.map(({ offset, limit }) => `${offset as number}+${limit as number}`), ['0+3', '3+3', '6+3'], 'the short third page ends it')
  calls.length = 0
  t.same(await all(client.paginate('articles', { limit: 2, green: false, offset: 1 })), TEAS.filter((tea) => !GREEN.has(tea)).slice(1))
  t.strictSame(calls.map(({ offset }) => offset), [1, 3], 'the total (5) is reached with a full page: no empty page asked for')
  t.ok(calls.every(({ green }) => green === false))
})

t.test('stopping early asks for no more pages', async (t) => {
  const { origin, calls } = await pagedApp(t)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  for await (const tea of client.paginate<string>('teas', { limit: 2 })) if (tea === 'darjeeling') break
  t.equal(calls.length, 1)
})

t.test('a command that is not paginated, or a page without its items, is refused', async (t) => {
  const { origin } = await pagedApp(t)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  await t.rejects(all(client.paginate('menu')), { code: 'SVC_CLIENT_NOT_PAGINATED', message: 'paginate("menu"): Shop has no paginated command "menu", which its manifest does not declare paginated. Call it with execute().' })
  await t.rejects(all(client.paginate('nothing')), { code: 'SVC_CLIENT_NOT_PAGINATED', message: /which its manifest does not list/ })

  const odd = Fastify()
  await odd.register(svcManifest, requiredOptions)
  odd.get('/list', { svc: { description: 'Pages without items', paginated: { items: 'results' } }, schema: { querystring: { type: 'object', properties: { cursor: { type: 'string' }, limit: { type: 'integer' } } } } }, async () => ({ items: [] }))
  odd.get('/more', { svc: { description: 'Surf\'s hasMore', paginated: true }, schema: { querystring: { type: 'object', properties: { cursor: { type: 'string' }, limit: { type: 'integer' } } } } }, async () => ({ items: [1], nextCursor: 'again', hasMore: false }))
  odd.get('/text', { svc: { description: 'Pages of text', paginated: { style: 'offset' } }, schema: { querystring: { type: 'object', properties: { offset: { type: 'integer' }, limit: { type: 'integer' } } } } }, async () => 'no page')
  const oddClient = createManifestClient({ url: `${await listening(t, odd)}/.well-known/svc.json` })
  await t.rejects(all(oddClient.paginate('list')), { code: 'SVC_CLIENT_INVALID_RESPONSE', message: 'list answered a page without an array "results", where its manifest says the page\'s items are' })
  await t.rejects(all(oddClient.paginate('text')), { code: 'SVC_CLIENT_INVALID_RESPONSE', message: /text answered a page without an array "items"/ })
  t.same(await all(oddClient.paginate('more')), [1], 'hasMore: false ends a cursor walk')
})

t.test('a service that does not move on stops the walk with an error, not a loop', async (t) => {
  const loop = Fastify()
  await loop.register(svcManifest, requiredOptions)
  const cursors: unknown[] = []
  const cursorQuery = { querystring: { type: 'object', properties: { cursor: { type: 'string' }, limit: { type: 'integer' } } } }
  const offsetQuery = { querystring: { type: 'object', properties: { offset: { type: 'integer' }, limit: { type: 'integer' } } } }
  loop.get('/same', { svc: { description: 'Always the same cursor', paginated: true }, schema: cursorQuery }, async (request) => {
    cursors.push((request.query as { cursor?: string }).cursor)
    return { items: [cursors.length], nextCursor: 'again' }
  })
  loop.get('/circle', { svc: { description: 'Cursors in a circle', paginated: true }, schema: cursorQuery }, async (request) => {
    const { cursor } = request.query as { cursor?: string }
    return { items: [cursor ?? 'start'], nextCursor: cursor === 'b' ? 'a' : cursor === 'a' ? 'b' : 'a' }
  })
  loop.get('/stuck', { svc: { description: 'Reads no offset', paginated: { style: 'offset', defaultLimit: 2 } }, schema: offsetQuery }, async () => ({ items: ['x', 'y'] }))
  const client = createManifestClient({ url: `${await listening(t, loop)}/.well-known/svc.json` })

  const seen: unknown[] = []
  await t.rejects(async () => { for await (const item of client.paginate('same')) seen.push(item) }, {
    code: 'SVC_CLIENT_INVALID_RESPONSE',
    message: 'same answered the cursor "again" a second time: its pages go round in a circle, and the walk stops there'
  })
  t.strictSame(cursors, [undefined, 'again'], 'the repeated cursor is not sent again')
  t.strictSame(seen, [1, 2])
  await t.rejects(all(client.paginate('circle')), { code: 'SVC_CLIENT_INVALID_RESPONSE', message: /circle answered the cursor "a" a second time/ })
  seen.length = 0
  await t.rejects(async () => { for await (const item of client.paginate('stuck')) seen.push(item) }, {
    code: 'SVC_CLIENT_INVALID_RESPONSE',
    message: 'stuck answered the same items at offset 2 as at offset 0: its route seems not to read "offset", and the walk stops there'
  })
  t.strictSame(seen, ['x', 'y'], 'the repeated page is not yielded')
})
