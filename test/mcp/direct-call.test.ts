import { Server } from '@modelcontextprotocol/server'
import Fastify from 'fastify'
import t from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import svcManifest from '../../lib/index.js'
import { MAX_VERDICTS } from '../../lib/mcp/direct-call.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// A 2026-07-28 tools/call in its plainest form is answered by the endpoint itself (lib/mcp/direct-call.ts);
// the same call with a progress token in its envelope is served by the SDK, which answers it the same way
// (nothing sends progress). Every answer of the first kind must equal the second's, and only the second
// reaches a handler of the SDK's server.

/**
 * How many requests the SDK's servers handed to their `tools/call` and `tools/list` handlers (the plugin's,
 * on every server it makes): a request the endpoint answers itself never reaches one. Counted by wrapping
 * each handler as it is set on a server of the SDK's `Server` class, the one the plugin loads.
 */
const sdkHandled = { 'tools/call': 0, 'tools/list': 0 }
const ownSetRequestHandler = Object.getOwnPropertyDescriptor(Server.prototype, 'setRequestHandler')
const setRequestHandler = Server.prototype.setRequestHandler as (this: Server, method: string, ...rest: unknown[]) => void
Object.defineProperty(Server.prototype, 'setRequestHandler', {
  configurable: true,
  writable: true,
  value: function (this: Server, method: string, ...rest: unknown[]): void {
    const handler = rest.at(-1)
    if ((method === 'tools/call' || method === 'tools/list') && typeof handler === 'function') {
      rest[rest.length - 1] = (...args: unknown[]) => {
        sdkHandled[method]++
        return handler(...args)
      }
    }
    setRequestHandler.call(this, method, ...rest)
  }
})
t.teardown(() => {
  if (ownSetRequestHandler === undefined) Reflect.deleteProperty(Server.prototype, 'setRequestHandler')
  else Object.defineProperty(Server.prototype, 'setRequestHandler', ownSetRequestHandler)
})

/** What `run` sent to the SDK's `method` handlers, with what it resolved to. */
async function counted<T> (method: keyof typeof sdkHandled, run: () => Promise<T>): Promise<[T, number]> {
  const before = sdkHandled[method]
  const value = await run()
  return [value, sdkHandled[method] - before]
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {}
}

interface Call {
  id?: unknown
  name: string
  arguments?: unknown
  envelope?: Record<string, unknown>
  headers?: Record<string, string>
  /** Replaces the whole body. */
  body?: unknown
}

async function post (origin: string, { id = 1, name, arguments: args, envelope = ENVELOPE, headers = {}, body }: Call): Promise<{ status: number, type: string | null, body: unknown }> {
  const params: Record<string, unknown> = { name, _meta: envelope }
  if (args !== undefined) params.arguments = args
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', ...(name === '' ? {} : { 'mcp-name': name }), ...headers },
    body: JSON.stringify(body ?? { jsonrpc: '2.0', id, method: 'tools/call', params })
  })
  const text = await response.text()
  const type = response.headers.get('content-type')
  // A 2025 request without a session is answered as one SSE event.
  const json = type === 'text/event-stream' ? (/^data: (.*)$/m.exec(text) as string[])[1] : text
  return { status: response.status, type, body: JSON.parse(json) }
}

/**
 * The call, answered directly and by the SDK (the same call with a progress token), and how many times each
 * reached the SDK's `tools/call` handler.
 */
async function both (origin: string, call: Call) {
  const [direct, directHandled] = await counted('tools/call', async () => await post(origin, call))
  const [bySdk, sdkHandled] = await counted('tools/call', async () => await post(origin, { ...call, envelope: { ...ENVELOPE, progressToken: 'p' } }))
  return { direct, bySdk, handled: [directHandled, sdkHandled] }
}

/** An app of lib/ (the shop runs the built package): a command, one that needs a token, and a channel for sessions. */
async function libApp () {
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    mcp: true,
    channels: { news: { description: 'News' } },
    auth: { type: 'bearer', description: 'Bearer token', verify: (token: string) => token === DEMO_TOKEN ? { sub: 'demo-user' } : null }
  })
  app.get('/search', {
    schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } },
    svc: { name: 'search', description: 'Search' }
  }, async (request) => ({ found: [(request.query as { q?: string }).q ?? 'all'] }))
  app.get('/cart', { svc: { name: 'cart.get', description: 'The cart', auth: 'required' } }, async () => ({ items: [] }))
  return app
}

t.test('a direct answer is the SDK\'s answer: results, tool errors, auth, ids of both kinds, no arguments', async (t) => {
  const app = await buildShop({ mcp: true })
  const origin = await listening(t, app)
  const auth = { authorization: `Bearer ${DEMO_TOKEN}` }
  const calls: Array<[string, Call]> = [
    ['an object result', { name: 'search', arguments: { q: 'tea' } }],
    ['a string id', { id: 'call-1', name: 'search', arguments: { q: 'mug' } }],
    ['a tool error from the route\'s validation', { name: 'search', arguments: { q: 5, limit: 'many' } }],
    ['UNAUTHORIZED without a token', { name: 'cart_get', arguments: {} }],
    ['the caller\'s cart with a token', { name: 'cart_get', headers: auth }],
    ['an idempotent command that changes state', { name: 'cart_remove', arguments: { sku: 'mug' }, headers: auth }],
    ['a command that fails in the route', { name: 'cart_add', arguments: { sku: 'nothing' }, headers: auth }]
  ]
  for (const [label, call] of calls) {
    const { direct, bySdk, handled } = await both(origin, call)
    t.same(direct, bySdk, label)
    t.equal(direct.status, 200, `${label}: 200`)
    t.same(handled, [0, 1], `${label}: answered without the SDK's server; with a progress token, by it`)
  }
})

t.test('tools/list: the direct answer is the SDK\'s', async (t) => {
  const app = await libApp()
  const origin = await listening(t, app)
  const list = async (envelope: Record<string, unknown>, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) => await post(origin, {
    name: '', headers: { 'mcp-method': 'tools/list', ...headers }, body: { jsonrpc: '2.0', id: 'list-1', method: 'tools/list', params: { _meta: envelope, ...extra } }
  })
  const [direct, directHandled] = await counted('tools/list', async () => await list(ENVELOPE))
  t.equal(directHandled, 0, 'answered without the SDK\'s server')
  const [bySdk, sdkHandled] = await counted('tools/list', async () => await list({ ...ENVELOPE, progressToken: 'p' }))
  t.equal(sdkHandled, 1, 'with a progress token, by it')
  t.same(direct, bySdk, 'the same answer')
  t.same((direct.body as { result: { tools: Array<{ name: string }> } }).result.tools.map(({ name }) => name), ['cart_get', 'search'])
  // Not taken, and served by the SDK: a cursor; an Mcp-Name header, which tools/list has none of.
  const [withCursor, cursorHandled] = await counted('tools/list', async () => await list(ENVELOPE, {}, { cursor: 'x' }))
  t.same([withCursor, cursorHandled], [direct, 1], 'a cursor: every tool, from the SDK')
  const [named, namedHandled] = await counted('tools/list', async () => await list(ENVELOPE, { 'mcp-name': 'x' }))
  t.same([named, namedHandled], [direct, 1], 'an Mcp-Name header: the same, from the SDK')
})

t.test('a 2025-11-25 session: a direct answer is the transport\'s answer', async (t) => {
  const app = await libApp()
  app.addContentTypeParser('application/x-json', { parseAs: 'string' }, (request, body, done) => { done(null, JSON.parse(body as string)) })
  const origin = await listening(t, app)
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const opened = await fetch(`${origin}/mcp`, {
    method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } })
  })
  await opened.text()
  const session = opened.headers.get('mcp-session-id') as string
  const send = async (body: unknown, extra: Record<string, string> = {}) => {
    const response = await fetch(`${origin}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...extra }, body: JSON.stringify(body) })
    const seen = ['content-type', 'cache-control', 'mcp-session-id', 'x-accel-buffering'].map((name) => [name, response.headers.get(name)])
    return { status: response.status, headers: seen, text: await response.text() }
  }
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  const call = (params: Record<string, unknown>, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
  for (const [label, params] of [
    ['an object result', { name: 'search', arguments: { q: 'tea' } }],
    ['no arguments', { name: 'search' }],
    ['a tool error', { name: 'cart_get', arguments: {} }]
  ] as const) {
    const [direct, directHandled] = await counted('tools/call', async () => await send(call(params)))
    const [bySdk, sdkHandled] = await counted('tools/call', async () => await send(call({ ...params, _meta: { progressToken: 'p' } })))
    t.same(direct, bySdk, label)
    t.same([directHandled, sdkHandled], [0, 1], `${label}: answered without the session's server; with a progress token, by it`)
    t.match(direct.text, /^event: message\ndata: \{"result":/, `${label}: one SSE event`)
  }
  // Not taken, and answered by the transport as before.
  const search = { name: 'search', arguments: { q: 'tea' } }
  const declined: Array<[string, unknown, Record<string, string>, number]> = [
    ['a batch', [call(search)], {}, 200],
    ['another top-level key', { ...call(search), extra: 1 }, {}, 400],
    ['not JSON-RPC 2.0', { ...call(search), jsonrpc: '1.0' }, {}, 400],
    ['a non-integer id', call(search, 1.5), {}, 400],
    ['params not an object', { ...call(search), params: 5 }, {}, 400],
    ['another revision in the header', call(search), { 'mcp-protocol-version': '2025-06-18' }, 200],
    ['no event streams accepted', call(search), { accept: 'application/json' }, 406],
    ['not JSON', call(search), { 'content-type': 'application/x-json' }, 415],
    ['an unknown tool', call({ name: 'nope' }), {}, 200],
    ['a name that is not a string', call({ name: 5 }), {}, 200]
  ]
  for (const [label, body, extra, status] of declined) t.equal((await send(body, extra)).status, status, `${label}: ${status}`)
})

t.test('what the direct path does not take, the SDK answers as before', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => ({ pong: true }))
  // A parser of another JSON media type: its bodies reach the endpoint parsed, and the SDK refuses them.
  app.addContentTypeParser('application/x-json', { parseAs: 'string' }, (request, body, done) => { done(null, JSON.parse(body as string)) })
  const origin = await listening(t, app)
  const base = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {}, _meta: ENVELOPE } }
  // Each refused with its code, or served: by the SDK, or (a 2025 call) as the 2025 revisions' direct path answers it.
  const cases: Array<[string, Call, number, number | 'by the SDK' | 'as a 2025 call']> = [
    ['an unknown tool', { name: 'nope', arguments: {} }, 200, -32602],
    ['a non-integer id', { id: 1.5, name: 'ping' }, 400, -32600],
    ['another top-level key', { name: 'ping', body: { ...base, extra: true } }, 400, -32600],
    ['not JSON-RPC 2.0', { name: 'ping', body: { ...base, jsonrpc: '1.0' } }, 400, -32600],
    ['params not an object', { name: 'ping', body: { ...base, params: 'ping' } }, 400, -32600],
    ['a task in params', { name: 'ping', body: { ...base, params: { ...base.params, task: {} } } }, 200, 'by the SDK'],
    ['a name that is not a string', { name: 'ping', body: { ...base, params: { ...base.params, name: 5 } } }, 200, -32602],
    ['arguments not an object', { name: 'ping', arguments: [1] }, 200, -32602],
    ['no envelope', { name: 'ping', headers: { 'mcp-protocol-version': '2025-06-18' }, body: { ...base, params: { name: 'ping' } } }, 200, 'as a 2025 call'],
    ['an envelope the SDK refuses', { name: 'ping', envelope: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': 5 } }, 400, -32602],
    ['an Mcp-Name header that disagrees', { name: 'ping', headers: { 'mcp-name': 'pong' } }, 400, -32020],
    ['another revision in the header', { name: 'ping', headers: { 'mcp-protocol-version': '2025-11-25' } }, 400, -32020],
    ['another Mcp-Method header', { name: 'ping', headers: { 'mcp-method': 'tools/list' } }, 400, -32020],
    ['another JSON media type', { name: 'ping', headers: { 'content-type': 'application/x-json' } }, 415, -32000]
  ]
  for (const [label, call, status, code] of cases) {
    const [answer, handled] = await counted('tools/call', async () => await post(origin, call))
    t.equal(answer.status, status, `${label}: ${status}`)
    const { error, result } = answer.body as { error?: { code: number }, result?: { isError?: boolean, structuredContent?: unknown } }
    if (typeof code === 'string') t.same([result?.structuredContent, handled], [{ pong: true }, code === 'by the SDK' ? 1 : 0], `${label}: served, ${code}`)
    else t.equal(error?.code ?? (result?.isError === true ? -32602 : undefined), code, `${label}: ${code}`)
  }
  // Each envelope's verdict is remembered, up to a bound; past it they start over, and every call is still answered, directly.
  const [, handled] = await counted('tools/call', async () => {
    for (let index = 0; index <= MAX_VERDICTS; index++) {
      const envelope = { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'test', version: `1.0.${index}` } }
      const answer = await post(origin, { name: 'ping', envelope })
      if ((answer.body as { result?: { structuredContent?: unknown } }).result?.structuredContent === undefined) t.fail(`envelope ${index}`)
    }
  })
  t.pass(`${MAX_VERDICTS + 1} envelopes, each call answered`)
  t.equal(handled, 0, 'each without the SDK\'s server')
})

t.test('a 2025 call without a session: a direct answer is the SDK\'s answer', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => ({ pong: true }))
  app.get('/fail', { svc: { description: 'Fails' } }, async (request, reply) => await reply.code(409).send({ message: 'no' }))
  const origin = await listening(t, app)
  const send = async (params: Record<string, unknown>, extra: Record<string, string> = {}) => {
    const response = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...extra },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params })
    })
    const seen = ['content-type', 'cache-control', 'mcp-session-id', 'x-accel-buffering'].map((name) => [name, response.headers.get(name)])
    return { status: response.status, headers: seen, text: await response.text() }
  }
  for (const [label, params, extra] of [
    ['an object result, 2025-06-18', { name: 'ping', arguments: {} }, {}],
    ['no arguments, 2024-11-05', { name: 'ping' }, { 'mcp-protocol-version': '2024-11-05' }],
    ['a tool error, 2025-11-25', { name: 'fail', arguments: {} }, { 'mcp-protocol-version': '2025-11-25' }]
  ] as const) {
    const [direct, directHandled] = await counted('tools/call', async () => await send(params, extra))
    const [bySdk, sdkHandled] = await counted('tools/call', async () => await send({ ...params, _meta: { progressToken: 'p' } }, extra))
    t.same(direct, bySdk, label)
    t.same([directHandled, sdkHandled], [0, 1], `${label}: answered without the SDK's server; with a progress token, by it`)
    t.match(direct.text, /^event: message\ndata: \{"result":/, `${label}: one SSE event`)
  }
  // Not taken: a session id (there are no sessions here), an unknown revision; the SDK answers them as before.
  t.equal((await send({ name: 'ping' }, { 'mcp-session-id': 'x' })).status, 200, 'a session id where there are none: served by the SDK')
  t.equal((await send({ name: 'ping' }, { 'mcp-protocol-version': '1999-01-01' })).status, 400, 'an unknown revision: refused by the SDK')
})

t.test('concurrent callers with different tokens: each call carries its own request\'s credential, with and without a session', async (t) => {
  const app = Fastify()
  const subjects: Record<string, string> = { 'token-a': 'a', 'token-b': 'b' }
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    mcp: true,
    channels: { news: { description: 'News' } },
    auth: { type: 'bearer', description: 'Bearer token', verify: (token: string) => token in subjects ? { sub: subjects[token] } : null }
  })
  app.get('/whoami', { svc: { description: 'The caller', auth: 'required' } }, async (request) => {
    // Calls overlap: each waits a little, in an order unrelated to the order they came in.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
    return { sub: (request as unknown as { svcCredential: { sub: string } }).svcCredential.sub }
  })
  const origin = await listening(t, app)
  const accept = 'application/json, text/event-stream'
  const sessionOf = async (token: string): Promise<string> => {
    const opened = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } })
    })
    await opened.text()
    return opened.headers.get('mcp-session-id') as string
  }
  const sessions: Record<string, string> = { 'token-a': await sessionOf('token-a'), 'token-b': await sessionOf('token-b') }
  const call = async (token: string, inSession: boolean, index: number): Promise<unknown> => {
    const headers: Record<string, string> = inSession
      ? { 'mcp-session-id': sessions[token], 'mcp-protocol-version': '2025-11-25' }
      : { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }
    const params = inSession ? { name: 'whoami', arguments: {} } : { name: 'whoami', arguments: {}, _meta: ENVELOPE }
    const response = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'tools/call', params })
    })
    const text = await response.text()
    const json = inSession ? (/^data: (.*)$/m.exec(text) as string[])[1] : text
    return (JSON.parse(json) as { result: { structuredContent: unknown } }).result.structuredContent
  }
  const plan = Array.from({ length: 40 }, (_, index) => ({ token: index % 2 === 0 ? 'token-a' : 'token-b', inSession: index % 4 >= 2 }))
  const [results, handled] = await counted('tools/call', async () => await Promise.all(plan.map(async ({ token, inSession }, index) => await call(token, inSession, index))))
  t.same(results, plan.map(({ token }) => ({ sub: subjects[token] })), 'every call answered with its own caller')
  t.equal(handled, 0, 'each answered without the SDK\'s server')
})
