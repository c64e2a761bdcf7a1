import t from 'tap'
import { authScheme, groupByTag, hintPhrases, matchesFilter, UNTAGGED, type PageCommand } from '../../lib/ui/catalog.js'
import { jsonTokens } from '../../lib/ui/json-view.js'
import { parseLinks } from '../../lib/manifest/invocation.js'
import { channelUrl, curlOf, eventsQuery, executeBody, executeFrame, pageEndpoints, pipelineStepOf, progressText, shellQuote } from '../../lib/ui/requests.js'

// What the page computes without a DOM: endpoints from the Link header, calls written out, JSON tokens,
// commands grouped and filtered.

const MANIFEST = 'http://127.0.0.1:3000/.well-known/svc.json'

t.test('endpoints come from the Link header, on the manifest\'s origin only', async (t) => {
  const link = '</svc/execute>; rel="svc-execute", </svc/pipeline>; rel="svc-pipeline", </svc/events>; rel="svc-events", </svc/ui>; rel="svc-ui"'
  t.same(pageEndpoints(MANIFEST, link), {
    events: 'http://127.0.0.1:3000/svc/events',
    channels: 'http://127.0.0.1:3000/svc/channels',
    execute: 'http://127.0.0.1:3000/svc/execute',
    pipeline: 'http://127.0.0.1:3000/svc/pipeline'
  })
  t.same(pageEndpoints(MANIFEST, '</api/events>; rel=svc-events'), {
    events: 'http://127.0.0.1:3000/api/events',
    channels: 'http://127.0.0.1:3000/api/channels'
  }, 'invoke off: no execute, no pipeline')
  t.same(pageEndpoints(MANIFEST, '</api/events>; rel=svc-events, </live/channels>; rel="svc-channels"'), {
    events: 'http://127.0.0.1:3000/api/events',
    channels: 'http://127.0.0.1:3000/live/channels'
  }, 'the channels\' base as the Link header names it, as the client reads it')
  t.same(pageEndpoints(MANIFEST, null), {
    execute: 'http://127.0.0.1:3000/svc/execute',
    pipeline: 'http://127.0.0.1:3000/svc/pipeline',
    events: 'http://127.0.0.1:3000/svc/events',
    channels: 'http://127.0.0.1:3000/svc/channels'
  }, 'no Link header: the plugin\'s defaults')
  const hostile = '<https://evil.example/steal>; rel="svc-execute", <http://[::1>; rel="svc-pipeline", </real/execute>; rel="svc-execute"'
  t.match(pageEndpoints(MANIFEST, hostile), { execute: 'http://127.0.0.1:3000/real/execute', pipeline: undefined, events: 'http://127.0.0.1:3000/svc/events' }, 'another origin and a broken URL are ignored')
})

t.test('a Link header is read by its grammar', async (t) => {
  t.same(parseLinks('<a>; rel="one TWO", <b>; title="x"; rel=three, <c>; title="no rel"'), [
    { target: 'a', rels: ['one', 'two'] },
    { target: 'b', rels: ['three'] }
  ])
  t.same(parseLinks(''), [])
})

t.test('a call as curl, with the token named and never written', async (t) => {
  const body = executeBody('search', { q: "it's" })
  t.same(body, { command: 'search', params: { q: "it's" } })
  t.equal(curlOf('http://127.0.0.1:3000/svc/execute', body),
    "curl -s 'http://127.0.0.1:3000/svc/execute' \\\n  -H 'content-type: application/json' \\\n  -d '{\"command\":\"search\",\"params\":{\"q\":\"it'\\''s\"}}'")
  t.match(curlOf('http://x/svc/execute', body, 'Bearer'), /\n {2}-H "authorization: Bearer \$TOKEN" \\\n/)
  t.match(curlOf('http://x/svc/execute', body, 'Token'), '-H "authorization: Token $TOKEN"', 'the manifest\'s own scheme')
  t.equal(shellQuote("a'b"), "'a'\\''b'")
  t.equal(pipelineStepOf('search', { q: 'tea' }), '{\n  "command": "search",\n  "params": {\n    "q": "tea"\n  }\n}')
})

t.test('a streamed call: the envelope asks for it, curl prints frames as they come', async (t) => {
  const body = executeBody('orders.live', { count: 3 }, true)
  t.same(body, { command: 'orders.live', params: { count: 3 }, stream: true })
  t.same(executeBody('search', {}, false), { command: 'search', params: {} })
  t.equal(curlOf('http://x/svc/execute', body),
    "curl -sN 'http://x/svc/execute' \\\n  -H 'content-type: application/json' \\\n  -d '{\"command\":\"orders.live\",\"params\":{\"count\":3},\"stream\":true}'")
  t.match(curlOf('http://x/svc/execute', 'text'), /^curl -s '/, 'a body that is no envelope: as it is')
  t.match(curlOf('http://x/svc/execute', null), /^curl -s '/)
})

t.test('the frames of a streamed execute', async (t) => {
  t.same(executeFrame('{"type":"chunk","data":{"id":1}}'), { type: 'chunk', data: { id: 1 } })
  t.same(executeFrame('{"type":"progress","progress":2,"total":7,"message":"day 2"}'), { type: 'progress', progress: 2, total: 7, message: 'day 2' })
  t.same(executeFrame('{"type":"done","result":null}'), { type: 'done', result: null })
  t.same(executeFrame('{"type":"error","error":{"code":"TIMEOUT","message":"late","status":504}}'), { type: 'error', error: { code: 'TIMEOUT', message: 'late', status: 504 } })
  for (const data of ['not json', '42', 'null', '{"type":"other"}', '{"type":1}', '{}']) t.equal(executeFrame(data), undefined, data)
  t.equal(progressText({ progress: 3, total: 7, message: 'day 3 of 7' }), '3 of 7 · day 3 of 7')
  t.equal(progressText({ progress: 40, message: 'copying' }), '40 · copying')
  t.equal(progressText({ progress: 3, total: 7, message: '' }), '3 of 7')
  t.equal(progressText({ progress: 3 }), '3')
})

t.test('stream URLs', async (t) => {
  t.equal(eventsQuery(['a', 'b'], ['a', 'b']), '', 'every event: the stream\'s default')
  t.equal(eventsQuery(['a.x', 'b'], ['a.x', 'b', 'c']), '?events=a.x%2Cb')
  t.equal(channelUrl('http://h/svc/channels', 'cart', 'user/1 ?'), 'http://h/svc/channels/cart/user%2F1%20%3F')
})

t.test('JSON tokens, for colouring', async (t) => {
  const tokens = jsonTokens({ 'k"ey': ['s', -1.5e3, true, false, null, {}], n: 0 })
  t.same(tokens.filter((token) => token.kind !== 'space').map((token) => [token.kind, token.text]), [
    ['punctuation', '{'],
    ['key', '"k\\"ey"'], ['punctuation', ':'],
    ['punctuation', '['],
    ['string', '"s"'], ['punctuation', ','],
    ['number', '-1500'], ['punctuation', ','],
    ['boolean', 'true'], ['punctuation', ','],
    ['boolean', 'false'], ['punctuation', ','],
    ['null', 'null'], ['punctuation', ','],
    ['punctuation', '{'], ['punctuation', '}'],
    ['punctuation', ']'], ['punctuation', ','],
    ['key', '"n"'], ['punctuation', ':'],
    ['number', '0'],
    ['punctuation', '}']
  ])
  t.equal(tokens.map((token) => token.text).join(''), JSON.stringify({ 'k"ey': ['s', -1.5e3, true, false, null, {}], n: 0 }, null, 2), 'nothing lost')
  t.same(jsonTokens(undefined), [], 'nothing to show')
  t.same(jsonTokens('<b>x</b>'), [{ text: '"<b>x</b>"', kind: 'string' }])
  t.same(jsonTokens(1e21), [{ text: '1e+21', kind: 'number' }])
  t.same(jsonTokens({ a: [1, 'x'] }, 0).map((token) => token.text).join(''), '{"a":[1,"x"]}', 'on one line')
})

t.test('commands grouped by tag, the untagged last', async (t) => {
  const commands: Record<string, PageCommand> = {
    'cart.add': { description: 'Add', tags: ['cart', 'write'] },
    'cart.get': { description: 'Get', tags: ['cart', 'cart'] },
    ping: { description: 'Ping' },
    search: { description: 'Search', tags: ['catalogue'] },
    status: { description: 'Status', tags: [] }
  }
  t.same(groupByTag(commands), [
    { tag: 'cart', names: ['cart.add', 'cart.get'] },
    { tag: 'catalogue', names: ['search'] },
    { tag: 'write', names: ['cart.add'] },
    { tag: UNTAGGED, names: ['ping', 'status'] }
  ])
  t.same(groupByTag({ b: { description: 'x', tags: ['b'] }, a: { description: 'x', tags: ['a'] } }).map((group) => group.tag), ['a', 'b'])
  t.same(groupByTag({}), [])
})

t.test('the filter matches every word in name, description or tags', async (t) => {
  const command: PageCommand = { description: 'Add a product to the cart', tags: ['Write'] }
  t.ok(matchesFilter('cart.add', command, ''))
  t.ok(matchesFilter('cart.add', command, 'CART  product'))
  t.ok(matchesFilter('cart.add', command, 'write'))
  t.notOk(matchesFilter('cart.add', command, 'cart remove'))
  t.ok(matchesFilter('ping', { description: 'Ping' }, 'pi'))
})

t.test('the token\'s scheme: the manifest\'s auth.scheme, else Bearer', async (t) => {
  t.equal(authScheme({ auth: { type: 'bearer', description: 'JWT', scheme: 'Token' } }), 'Token')
  t.equal(authScheme({ auth: { type: 'bearer', description: 'JWT' } }), 'Bearer')
  t.equal(authScheme({}), 'Bearer')
})

t.test('hints as phrases', async (t) => {
  t.same(hintPhrases({ idempotent: true, sideEffects: false }), ['idempotent', 'no side effects'])
  t.same(hintPhrases({ idempotent: false, sideEffects: true }), ['not idempotent', 'side effects'])
  t.same(hintPhrases(undefined), [])
})
