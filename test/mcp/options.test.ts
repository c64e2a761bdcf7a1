import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { httpClient } from '../helpers/mcp.js'
import { listen } from '../helpers/net.js'

const ping = (app: FastifyInstance) => {
  app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
}

t.test('mcp must be true, false or { path, maxSubscriptions, maxListensPerSubject, maxListens } with a plain URL path and whole numbers', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /"mcp" must be true, false or \{ path, maxSubscriptions, maxListensPerSubject, maxListens \}; got "yes"/],
    [null, /"mcp" must be true, false or \{ path, maxSubscriptions, maxListensPerSubject, maxListens \}; got null/],
    [{ path: 'mcp' }, /"mcp.path" must be a URL path starting with "\/"/],
    [{ path: '/mcp/:id' }, /"mcp.path" must be a URL path/],
    [{ path: 42 }, /"mcp.path" must be a URL path/],
    [{ path: '/mcp', stateful: true }, /"mcp.stateful" must be absent \(mcp takes path, maxSubscriptions, maxListensPerSubject and maxListens\)/],
    [{ maxSubscriptions: 0 }, /"mcp.maxSubscriptions" must be a whole number, 1 or more; got 0/],
    [{ maxListensPerSubject: 1.5 }, /"mcp.maxListensPerSubject" must be a whole number, 1 or more; got 1.5/],
    [{ maxListens: '8' }, /"mcp.maxListens" must be a whole number, 1 or more; got "8"/]
  ]
  for (const [mcp, message] of cases) {
    await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, mcp } as unknown as SvcManifestOptions) }, { code: 'FST_SVC_INVALID_OPTION', message }, JSON.stringify(mcp))
  }
})

t.test('mcp: false, or left out, adds no route and no link', async (t) => {
  for (const mcp of [false, undefined]) {
    const app = await readyApp(t, mcp === undefined ? {} : { mcp }, ping)
    t.notOk(app.hasRoute({ method: 'POST', url: '/mcp' }))
    t.notMatch((await app.inject('/.well-known/svc.json')).headers.link, /mcp/)
    t.equal((await app.inject({ method: 'POST', url: '/mcp', payload: {} })).statusCode, 404)
  }
})

t.test('mcp: true serves at /mcp, {} too; the link comes after execute, pipeline and events', async (t) => {
  for (const mcp of [true, {}]) {
    const app = await readyApp(t, { mcp }, ping)
    t.ok(app.hasRoute({ method: 'POST', url: '/mcp' }))
    t.equal((await app.inject('/.well-known/svc.json')).headers.link, '</svc/execute>; rel="svc-execute", </svc/pipeline>; rel="svc-pipeline", </svc/events>; rel="svc-events", </mcp>; rel="mcp"')
  }
  const alone = await readyApp(t, { mcp: true, invoke: false }, ping)
  t.equal((await alone.inject('/.well-known/svc.json')).headers.link, '</svc/events>; rel="svc-events", </mcp>; rel="mcp"', 'tools call the routes, not execute: invoke may be off')
})

t.test('two commands on one tool name reject ready(), every clash named at once', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true })
  app.get('/cart/add', { svc: { name: 'cart.add', description: 'Add' } }, async () => null)
  app.get('/cart_add', { svc: { name: 'cart_add', description: 'Add, the other way' } }, async () => null)
  app.get('/a/b', { svc: { name: 'a.b', description: 'A' } }, async () => null)
  app.get('/a_b', { svc: { name: 'a_b', description: 'B' } }, async () => null)
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_SVC_DUPLICATE_NAME',
    message: 'Duplicate name: MCP tools: commands "a.b" and "a_b" are both the tool "a_b"; commands "cart.add" and "cart_add" are both the tool "cart_add". Set svc.name on the route to another name, or turn the mcp option off.'
  })
  const call = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  })
  t.equal(call.statusCode, 500, 'an app that did not start offers no tools')
  t.same(call.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Internal server error' }, id: null })
})

t.test('a tool name longer than clients take rejects ready()', async (t) => {
  const long = `a${'.b'.repeat(32)}`
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true })
  app.get('/long', { svc: { name: long, description: 'Long' } }, async () => null)
  app.get('/x', { svc: { name: `x${'y'.repeat(63)}`, description: 'Exactly 64' } }, async () => null)
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_SVC_INVALID_NAME',
    message: new RegExp(`^Invalid name: MCP tools: command "${long.replaceAll('.', '\\.')}" gives the tool name "${long.replaceAll('.', '_')}", which is not 1 to 64 letters`)
  })
  const fine = await readyApp(t, { mcp: true }, (app) => { app.get('/x', { svc: { name: `x${'y'.repeat(63)}`, description: 'Exactly 64' } }, async () => null) })
  const client = await httpClient(t, `${await listen(fine)}/mcp`)
  t.same((await client.listTools()).tools.map((tool) => tool.name), [`x${'y'.repeat(63)}`], '64 characters are fine: the tool is offered under that name')
})
