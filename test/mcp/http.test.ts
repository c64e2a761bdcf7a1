import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { Client } from '@modelcontextprotocol/client'
import type { Tool } from '@modelcontextprotocol/client'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import svcManifest from '../../lib/index.js'
import { fetchManifest, requiredOptions } from '../helpers/app.js'
import { compileInputSchema, DRAFT_07, httpClient, legacyHttpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

/** The shop of examples/shop with MCP on, listening, and an MCP client connected to it. */
async function shopWithClient (t: Test, headers: Record<string, string> = {}) {
  const app = await buildShop({ mcp: true })
  const origin = await listening(t, app)
  return { app, origin, client: await httpClient(t, `${origin}/mcp`, headers) }
}

/**
 * MCP on in the example shop, which imports the built package by its name as an app does, and in an app of
 * the sources in lib/: what the endpoint does for any app is checked on both.
 */
const builds: Array<[string, () => Promise<FastifyInstance>]> = [
  ['the shop', () => buildShop({ mcp: true })],
  ['an app of lib/', async () => {
    const app = Fastify()
    await app.register(svcManifest, { ...requiredOptions, mcp: true })
    app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
    return app
  }]
]

function toolNamed (tools: Tool[], name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
}

t.test('discover (2026-07-28): the server names the service, offers tools and passes the description on', async (t) => {
  const { client } = await shopWithClient(t)
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'the v2 client gets the current revision')
  t.same(client.getServerVersion(), { name: 'Shop', version: '2.3.0' })
  t.same(client.getServerCapabilities()?.tools, {})
  t.equal(client.getInstructions(), 'Demo shop')
})

t.test('the 2025 revisions: initialize from the v1 client (2025-11-25) and the v2 client asked for 2025-06-18', async (t) => {
  const app = await buildShop({ mcp: true })
  const origin = await listening(t, app)
  const v1 = await legacyHttpClient(t, `${origin}/mcp`, { authorization: `Bearer ${DEMO_TOKEN}` })
  const v2 = await httpClient(t, `${origin}/mcp`, { authorization: `Bearer ${DEMO_TOKEN}` }, ['2025-06-18'])
  t.equal(v2.getNegotiatedProtocolVersion(), '2025-06-18')
  for (const [label, client] of [['v1 client', v1], ['v2 client, 2025-06-18', v2]] as const) {
    t.same(client.getServerVersion(), { name: 'Shop', version: '2.3.0' }, `${label}: the service`)
    const { tools } = await client.listTools()
    t.same(tools.map((tool) => tool.name), ['cart_add', 'cart_get', 'cart_remove', 'search'], `${label}: the tools`)
    t.same(toolNamed(tools as Tool[], 'cart_remove').annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }, `${label}: the annotations`)
    const found = await client.callTool({ name: 'search', arguments: { q: 'tea' } })
    t.match(textJson(found as Record<string, unknown>), [{ sku: String }], `${label}: a call`)
    const cart = await client.callTool({ name: 'cart_get', arguments: {} })
    t.notOk(cart.isError, `${label}: a call with the client's token`)
  }
})

t.test('each command is a tool: name, description, hints, and the params as the route validates them', async (t) => {
  const { app, client } = await shopWithClient(t)
  const manifest = await fetchManifest(app)
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), Object.keys(manifest.commands).map((name) => name.replace('.', '_')), 'one tool per command, in the manifest\'s order')
  for (const [name, command] of Object.entries(manifest.commands)) {
    const tool = toolNamed(tools, name.replaceAll('.', '_'))
    t.equal(tool.description, command.description, `${name}: description`)
    const params = command.params ?? {}
    t.same(Object.keys(tool.inputSchema.properties ?? {}).sort(), Object.keys(params).sort(), `${name}: every param, nothing else`)
    const required = Object.keys(params).filter((param) => params[param].required)
    t.same([...tool.inputSchema.required ?? []].sort(), required.sort(), `${name}: required as the manifest says`)
    for (const [param, { description, default: fallback }] of Object.entries(params)) {
      const property = (tool.inputSchema.properties as Record<string, Record<string, unknown>>)[param]
      t.equal(property.description, description, `${name}.${param}: description`)
      t.same(property.default, fallback, `${name}.${param}: default`)
    }
    t.equal(tool.title, name.charAt(0).toUpperCase() + name.slice(1).replaceAll('.', ' '), `${name}: a title for people`)
    compileInputSchema(tool)
  }
  // All four hints on every tool: from the command's hints, else from its method; only a DELETE is destructive.
  const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
  t.same(annotations, {
    cart_add: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    cart_get: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    cart_remove: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    search: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
  }, 'POST with hints, GET without, DELETE, GET with hints')
  // The constraints the manifest cannot carry are in the tool: integer, bounds.
  t.same(toolNamed(tools, 'search').inputSchema, {
    $schema: DRAFT_07,
    type: 'object',
    properties: {
      q: { type: 'string', description: 'Part of the product name' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 }
    },
    required: ['q']
  })
  t.same(toolNamed(tools, 'cart_add').inputSchema.properties, { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1, default: 1 } })
  t.same(toolNamed(tools, 'cart_remove').inputSchema, { $schema: DRAFT_07, type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }, 'a path param is required')
  t.same(toolNamed(tools, 'cart_get').inputSchema, { $schema: DRAFT_07, type: 'object', properties: {} })
  const validSearch = compileInputSchema(toolNamed(tools, 'search'))
  t.ok(validSearch({ q: 'tea', limit: 5 }))
  t.notOk(validSearch({ q: 'tea', limit: 51 }), 'the route\'s bound is in the schema')
  t.notOk(validSearch({ limit: 5 }))
})

t.test('call search: the result as JSON text; an object result also as structuredContent', async (t) => {
  const { client } = await shopWithClient(t, { authorization: `Bearer ${DEMO_TOKEN}` })
  const found = await client.callTool({ name: 'search', arguments: { q: 'tea', limit: 2 } })
  t.notOk(found.isError)
  t.same(textJson(found), [{ sku: 'mug', name: 'Tea mug', price: 8 }, { sku: 'tea-black', name: 'Black tea', price: 3.9 }])
  t.equal(found.structuredContent, undefined, 'an array is no structured content')
  const cart = await client.callTool({ name: 'cart_add', arguments: { sku: 'mug', quantity: 2 } })
  t.same(textJson(cart), { items: [{ sku: 'mug', quantity: 2 }], total: 16 })
  t.same(cart.structuredContent, { items: [{ sku: 'mug', quantity: 2 }], total: 16 })
})

t.test('a protected command: UNAUTHORIZED without a token, the result with one', async (t) => {
  const { origin, client: anonymous } = await shopWithClient(t)
  const refused = await anonymous.callTool({ name: 'cart_get', arguments: {} })
  t.equal(refused.isError, true)
  t.match(textJson(refused), { code: 'UNAUTHORIZED', status: 401, cause: 'FST_SVC_UNAUTHORIZED', message: /Bearer/ })
  const wrong = await httpClient(t, `${origin}/mcp`, { authorization: 'Bearer stolen' })
  t.match(textJson(await wrong.callTool({ name: 'cart_get', arguments: {} })), { code: 'UNAUTHORIZED', status: 401 })
  const user = await httpClient(t, `${origin}/mcp`, { authorization: `Bearer ${DEMO_TOKEN}` })
  const cart = await user.callTool({ name: 'cart_get', arguments: {} })
  t.notOk(cart.isError)
  t.same(cart.structuredContent, { items: [], total: 0 })
  t.same((await anonymous.listTools()).tools.length, 4, 'listing needs no token: the manifest is public')
})

t.test('invalid arguments: the route\'s own validation message, as a tool error', async (t) => {
  const { client } = await shopWithClient(t, { authorization: `Bearer ${DEMO_TOKEN}` })
  const missing = await client.callTool({ name: 'search', arguments: {} })
  t.equal(missing.isError, true)
  t.same(textJson(missing), { code: 'INVALID_PARAMS', message: 'querystring must have required property \'q\'', status: 400, cause: 'FST_ERR_VALIDATION' })
  const outOfBounds = await client.callTool({ name: 'search', arguments: { q: 'tea', limit: 99 } })
  t.match(textJson(outOfBounds), { code: 'INVALID_PARAMS', message: 'querystring/limit must be <= 50' })
  const notFound = await client.callTool({ name: 'cart_add', arguments: { sku: 'teapot' } })
  t.same(textJson(notFound), { code: 'NOT_FOUND', message: 'No product with SKU "teapot"', status: 404 }, 'an error the handler sends')
  const noArguments = await client.callTool({ name: 'search' })
  t.match(textJson(noArguments), { code: 'INVALID_PARAMS' }, 'no arguments are no params')
})

t.test('an unknown tool is a JSON-RPC error (invalid params), as MCP has it', async (t) => {
  for (const [label, build] of builds) {
    const client = await httpClient(t, `${await listening(t, await build())}/mcp`)
    await t.rejects(client.callTool({ name: 'cart.get', arguments: {} }), { code: -32602, message: /Unknown tool "cart.get"/ }, label)
  }
})

t.test('the manifest links the endpoint; other methods get 405; mcp: false serves nothing', async (t) => {
  const { origin } = await shopWithClient(t)
  const manifest = await fetch(`${origin}/.well-known/svc.json`)
  t.match(manifest.headers.get('link'), /<\/mcp>; rel="mcp"/)
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(`${origin}/mcp`, { method, headers: { accept: 'text/event-stream' } })
    t.equal(response.status, 405, method)
    t.equal(response.headers.get('allow'), 'POST')
    t.match(await response.json(), { jsonrpc: '2.0', error: { code: -32000, message: /stateless/ }, id: null })
  }

  const off = await buildShop()
  const offOrigin = await listening(t, off)
  for (const method of ['GET', 'POST']) {
    const response = await fetch(`${offOrigin}/mcp`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined })
    t.equal(response.status, 404, `mcp off: ${method} /mcp is not found`)
  }
  t.notMatch((await fetch(`${offOrigin}/.well-known/svc.json`)).headers.get('link') ?? '', /rel="mcp"/)
})

t.test('mcp: { path } serves at that path, with about in the instructions', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0', about: 'Ask for tea.', basePath: '/api', mcp: { path: '/agents/mcp' } })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  const origin = await listening(t, app)
  t.match((await fetch(`${origin}/.well-known/svc.json`)).headers.get('link'), /<\/agents\/mcp>; rel="mcp"/)
  const client = await httpClient(t, `${origin}/agents/mcp`)
  t.equal(client.getInstructions(), 'Demo shop\n\nAsk for tea.')
  t.same(textJson(await client.callTool({ name: 'ping', arguments: {} })), 'pong', 'a text body is a JSON string')
  t.equal((await fetch(`${origin}/mcp`, { method: 'POST' })).status, 404)
})

t.test('what never reaches the transport is still a JSON-RPC error', async (t) => {
  for (const [label, build] of builds) {
    await t.test(label, async (t) => {
      const app = await build()
      app.addHook('onRequest', async (request) => {
        if (request.headers['x-fail'] !== undefined) throw new Error('hook failed')
      })
      const origin = await listening(t, app)
      const post = (body: string, headers: Record<string, string>) => fetch(`${origin}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers }, body })
      const notJson = await post('{"jsonrpc":', { 'content-type': 'application/json' })
      t.equal(notJson.status, 400)
      t.match(await notJson.json(), { jsonrpc: '2.0', error: { code: -32700 }, id: null })
      const xml = await post('<hello/>', { 'content-type': 'application/xml' })
      t.equal(xml.status, 415, 'a body Fastify cannot parse')
      t.match(await xml.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type' }, id: null })
      const text = await post('hello', { 'content-type': 'text/plain' })
      t.equal(text.status, 415, 'a body Fastify parses, refused by the transport')
      t.match(await text.json(), { jsonrpc: '2.0', error: { code: -32000, message: /Content-Type must be application\/json/ }, id: null })
      const failed = await post('{}', { 'content-type': 'application/json', 'x-fail': '1' })
      t.equal(failed.status, 500)
      t.same(await failed.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Internal server error' }, id: null }, 'the reason stays in the log')
      const notMcp = await post('{"hello":1}', { 'content-type': 'application/json' })
      t.equal(notMcp.status, 400, 'JSON that is not JSON-RPC: the transport answers')
      t.match(await notMcp.json(), { jsonrpc: '2.0', error: { code: Number } })
      const noAccept = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
      t.equal(noAccept.status, 406, 'the transport\'s own checks apply')
    })
  }
})

t.test('concurrent calls each carry their own request\'s headers', async (t) => {
  const { origin } = await shopWithClient(t)
  const clients: Client[] = []
  for (let index = 0; index < 4; index++) clients.push(await httpClient(t, `${origin}/mcp`, index % 2 === 0 ? { authorization: `Bearer ${DEMO_TOKEN}` } : {}))
  const results = await Promise.all(clients.map((client) => client.callTool({ name: 'cart_get', arguments: {} })))
  t.same(results.map((result) => result.isError === true), [false, true, false, true])
})

t.test('the demo: SVC_MCP=1 npm run demo serves the shop\'s tools and prints where', async (t) => {
  const server = fileURLToPath(new URL('../../examples/shop/server.js', import.meta.url))
  const child = spawn(process.execPath, [server], { env: { ...process.env, PORT: '0', SVC_MCP: '1' }, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { child.kill() })
  let output = ''
  child.stdout.setEncoding('utf8')
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk
      const found = /MCP \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(output)
      if (found !== null) resolve(found[1])
    })
    child.once('exit', (code) => reject(new Error(`server.js exited with ${code}:\n${output}`)))
  })
  const client = await httpClient(t, url, { authorization: `Bearer ${DEMO_TOKEN}` })
  t.same((await client.listTools()).tools.map((tool) => tool.name), ['cart_add', 'cart_get', 'cart_remove', 'orders_live', 'products', 'report_build', 'search'])
  t.same((await client.callTool({ name: 'cart_get', arguments: {} })).structuredContent, { items: [], total: 0 })
  await client.close()
  child.kill()
  await once(child, 'exit')
})
