import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { checksumOf, type Manifest } from 'fastify-svc-manifest'
import { ADMIN_TOKEN, buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'

const server = fileURLToPath(new URL('../../examples/shop/server.js', import.meta.url))
const bearer = { authorization: `Bearer ${DEMO_TOKEN}` }

async function shop (t: Test, layout?: '1.0' | '0.5.0') {
  const app = await buildShop(layout === undefined ? undefined : { layout })
  t.teardown(() => app.close())
  return app
}

t.test('the manifest lists the shop\'s commands, event and types', async (t) => {
  const app = await shop(t)
  const response = await app.inject('/.well-known/svc.json')
  const manifest = response.json()
  t.equal(response.statusCode, 200)
  t.equal(manifest.svc, '1.0')
  t.same(Object.keys(manifest.commands), ['cart.add', 'cart.get', 'cart.remove', 'search'])
  t.same(manifest.commands.search.params.q, { type: 'string', required: true, description: 'Part of the product name' })
  t.same(manifest.commands.search.hints, { idempotent: true, sideEffects: false })
  t.same(manifest.commands['cart.remove'].params, { sku: { type: 'string', required: true } })
  for (const name of ['cart.add', 'cart.get', 'cart.remove']) t.equal(manifest.commands[name].auth, 'required', name)
  t.equal(manifest.commands.search.auth, undefined, 'search needs no token')
  t.same(manifest.events, { 'cart.updated': { description: 'Cart contents changed', data: { items: { type: 'array', required: true, items: { type: 'string' } } } } })
  t.same(Object.keys(manifest.types), ['Cart', 'Product'])
  t.same(manifest.types.Product.properties.sku, { type: 'string', required: true })
  t.notOk('about' in manifest, 'no about in layout 1.0')
  t.notOk('channels' in manifest, 'no channels in layout 1.0')
  t.equal(manifest.checksum, checksumOf(manifest.commands))
  t.equal(response.headers.etag, `"${manifest.checksum}"`)
})

t.test('layout 0.5.0 adds about and the cart channel, and keeps the commands', async (t) => {
  const current = await (await shop(t)).inject('/.well-known/svc.json')
  const response = await (await shop(t, '0.5.0')).inject('/.well-known/svc.json')
  const manifest = response.json()
  t.equal(manifest.svc, '0.5.0')
  t.match(manifest.about, /demo-token/)
  t.same(manifest.channels, { cart: { description: 'Real-time cart state' } })
  t.same(Object.keys(manifest), ['svc', 'name', 'description', 'about', 'version', 'baseUrl', 'auth', 'commands', 'events', 'channels', 'types', 'checksum', 'updatedAt'])
  t.equal(manifest.checksum, current.json().checksum, 'same commands, same checksum')
})

t.test('search filters the catalogue by name and honours limit', async (t) => {
  const app = await shop(t)
  const teas = await app.inject('/search?q=TEA')
  t.equal(teas.statusCode, 200)
  t.same(teas.json().map((product: { sku: string }) => product.sku), ['mug', 'tea-black', 'tea-green'])
  t.same((await app.inject('/search?q=tea&limit=1')).json(), [{ sku: 'mug', name: 'Tea mug', price: 8 }])
  t.equal((await app.inject('/search')).statusCode, 400, 'q is required')
})

t.test('cart commands work with the demo token', async (t) => {
  const app = await shop(t)
  const add = (payload: object) => app.inject({ method: 'POST', url: '/cart/items', headers: bearer, payload })

  t.same((await add({ sku: 'mug' })).json(), { items: [{ sku: 'mug', quantity: 1 }], total: 8 }, 'quantity defaults to 1')
  t.same((await add({ sku: 'tea-green', quantity: 3 })).json().total, 21.5)
  t.same((await add({ sku: 'mug', quantity: 2 })).json().items, [{ sku: 'mug', quantity: 3 }, { sku: 'tea-green', quantity: 3 }])
  const unknown = await add({ sku: 'teapot' })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json().message, /teapot/)

  const removed = await app.inject({ method: 'DELETE', url: '/cart/items/mug', headers: bearer })
  t.same(removed.json(), { items: [{ sku: 'tea-green', quantity: 3 }], total: 13.5 })
  const cart = await app.inject({ url: '/cart', headers: bearer })
  t.same(cart.json(), removed.json(), 'cart.get shows the same cart')
})

t.test('cart commands refuse a missing or wrong token', async (t) => {
  const app = await shop(t)
  const anonymous = await app.inject({ method: 'POST', url: '/cart/items', payload: { sku: 'mug' } })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"')
  const wrong = await app.inject({ url: '/cart', headers: { authorization: 'Bearer not-the-demo-token' } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"')
})

t.test('admin.sales is hidden: absent for everyone but the shop keeper, who sees and calls it', async (t) => {
  const app = await shop(t)
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  for (const headers of [{}, bearer]) {
    const manifest = (await app.inject({ url: '/.well-known/svc.json', headers })).json()
    t.notOk('admin.sales' in manifest.commands, `not listed ${'authorization' in headers ? 'for the demo token' : 'publicly'}`)
    t.equal((await app.inject({ url: '/admin/sales', headers })).statusCode, 404, 'its URL is not found')
    const executed = await app.inject({ method: 'POST', url: '/svc/execute', headers, payload: { command: 'admin.sales' } })
    t.same([executed.statusCode, executed.json().error.code], [404, 'UNKNOWN_COMMAND'])
  }
  await app.inject({ method: 'POST', url: '/cart/items', headers: bearer, payload: { sku: 'kettle', quantity: 2 } })
  const view = await app.inject({ url: '/.well-known/svc.json', headers: admin })
  const manifest = view.json()
  t.same(Object.keys(manifest.commands), ['admin.sales', 'cart.add', 'cart.get', 'cart.remove', 'search'])
  t.same([manifest.commands['admin.sales'].auth, manifest.commands['admin.sales'].requiredScopes], ['required', ['admin']], 'served as required')
  t.equal(manifest.checksum, checksumOf(manifest.commands))
  t.equal(view.headers['cache-control'], 'private, max-age=300')
  t.equal(view.headers.vary, 'authorization')
  t.same((await app.inject({ url: '/admin/sales', headers: admin })).json(), { carts: 1, total: 48 })
})

t.test('server.js listens on 127.0.0.1 and prints the manifest URL', async (t) => {
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, PORT: '0', SVC_LAYOUT: '0.5.0' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill() })
  let output = ''
  child.stdout.setEncoding('utf8')
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk
      const found = /Manifest: (http:\/\/127\.0\.0\.1:\d+\/\.well-known\/svc\.json)/.exec(output)
      if (found !== null) resolve(found[1])
    })
    child.once('exit', (code) => reject(new Error(`server.js exited with ${code} before printing the URL:\n${output}`)))
  })
  const response = await fetch(url)
  t.equal(response.status, 200)
  const manifest = await response.json() as Manifest
  t.equal(manifest.svc, '0.5.0', 'SVC_LAYOUT picks the layout')
  t.equal(response.headers.get('etag'), `"${manifest.checksum}"`)
  t.equal(manifest.baseUrl, new URL(url).origin, 'baseUrl is the address the shop listens on')
  t.match(output, `Call a command: curl -s ${manifest.baseUrl}/svc/execute`)
  t.match(output, `Watch a command stream: curl -N ${manifest.baseUrl}/svc/execute`)
  t.match(output, `The shop keeper's view, with the hidden admin.sales: curl -s ${url} -H 'authorization: Bearer ${ADMIN_TOKEN}'`)
  t.ok('orders.live' in manifest.commands && 'report.build' in manifest.commands, 'with the long-running commands')
  const executed = await fetch(`${manifest.baseUrl}/svc/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"command":"search","params":{"q":"tea"}}' })
  t.same(((await executed.json()) as { result: Array<{ sku: string }> }).result.map((product: { sku: string }) => product.sku), ['mug', 'tea-black', 'tea-green'], 'the printed call works at baseUrl')
  const notModified = await fetch(url, { headers: { 'if-none-match': manifest.checksum } })
  t.equal(notModified.status, 304)
  t.match(output, `For a language model: ${manifest.baseUrl}/llms.txt`)
  const llms = await fetch(`${manifest.baseUrl}/llms.txt`)
  t.equal(llms.status, 200, 'server.js turns discovery on')
  t.match(await llms.text(), /^# Shop\n\n> Demo shop\n[^]*\n### search\n[^]*\n## Channels\n/, 'the shop for a language model')
  const catalog = await fetch(`${manifest.baseUrl}/.well-known/api-catalog`)
  t.equal(((await catalog.json()) as { linkset: Array<{ anchor: string }> }).linkset[0].anchor, manifest.baseUrl)
  child.kill()
  await once(child, 'exit')
})

t.test('server.js defaults to port 3000', async (t) => {
  // Hold 127.0.0.1:3000 (or find it already held): the shop must then fail on exactly that address.
  const blocker = createServer()
  await new Promise<void>((resolve) => {
    blocker.once('error', () => resolve())
    blocker.listen(3000, '127.0.0.1', resolve)
  })
  t.teardown(() => { blocker.close() })
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.PORT
  const child = spawn(process.execPath, [server], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => { stderr += chunk })
  const [code] = await once(child, 'exit')
  t.not(code, 0)
  t.match(stderr, /EADDRINUSE.*127\.0\.0\.1:3000/)
})

/** The shop with its long-running commands, listening: a streamed execute is read as a browser reads it. */
async function longRunningShop (t: Test, tick = 20, before: (app: FastifyInstance) => void = () => {}) {
  const app = await buildShop({ longRunning: { tick } })
  before(app)
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(async () => {
    const closing = app.close()
    // After an aborted call, fetch may hold a spare connection that never sends a request: the server
    // would wait for it until its request timeout. The test is over: close them all.
    app.server.closeAllConnections()
    await closing
  })
  const { port } = app.server.address() as AddressInfo
  return { app, execute: `http://127.0.0.1:${port}/svc/execute` }
}

/** The frames of a streamed execute, each parsed. */
async function frames (response: Response): Promise<Array<Record<string, unknown>>> {
  t.equal(response.headers.get('content-type'), 'text/event-stream')
  return (await response.text()).split('\n\n').filter((frame) => frame !== '').map((frame) => JSON.parse(frame.replace(/^data: /, '')))
}

const post = async (url: string, body: unknown, signal?: AbortSignal) =>
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal })

t.test('longRunning adds orders.live and report.build, both declared stream', async (t) => {
  const app = await buildShop({ longRunning: true })
  t.teardown(() => app.close())
  const manifest = (await app.inject('/.well-known/svc.json')).json()
  t.same(Object.keys(manifest.commands), ['cart.add', 'cart.get', 'cart.remove', 'orders.live', 'report.build', 'search'])
  t.equal(manifest.commands['orders.live'].stream, true)
  t.equal(manifest.commands['report.build'].stream, true)
  t.same(manifest.commands['orders.live'].params.count, { type: 'number', required: false, default: 5, description: 'How many orders to wait for', minimum: 1, maximum: 20 })
  t.equal(manifest.commands['report.build'].auth, undefined, 'no token needed: anyone may watch them')
  t.equal(manifest.commands.search.stream, undefined, 'the others are not')
})

t.test('orders.live through execute: streamed, a piece per order as it comes; buffered, the array of them', async (t) => {
  const { execute } = await longRunningShop(t)
  const streamed = await post(execute, { command: 'orders.live', params: { count: 3 }, stream: true })
  t.equal(streamed.status, 200)
  t.same(await frames(streamed), [
    { type: 'chunk', data: { id: 1, sku: 'kettle', quantity: 2 } },
    { type: 'chunk', data: { id: 2, sku: 'mug', quantity: 3 } },
    { type: 'chunk', data: { id: 3, sku: 'tea-black', quantity: 1 } },
    { type: 'done', result: null }
  ])

  const buffered = await (await post(execute, { command: 'orders.live', params: { count: 2 } })).json()
  t.same(buffered, { ok: true, result: [{ id: 1, sku: 'kettle', quantity: 2 }, { id: 2, sku: 'mug', quantity: 3 }] }, 'buffered, the array of its pieces')
  const refused = await post(execute, { command: 'orders.live', params: { count: 0 }, stream: true })
  t.equal(refused.status, 400, 'a bad param is refused before any stream')
  t.match(await refused.json(), { ok: false, error: { code: 'INVALID_PARAMS' } })
})

t.test('report.build through execute: streamed, its progress then the report; buffered, the report', async (t) => {
  const { execute } = await longRunningShop(t)
  const report = { days: 3, sold: [{ sku: 'kettle', quantity: 6 }, { sku: 'mug', quantity: 5 }, { sku: 'tea-black', quantity: 4 }, { sku: 'tea-green', quantity: 3 }], revenue: 213.1 }
  t.same(await frames(await post(execute, { command: 'report.build', params: { days: 3 }, stream: true })), [
    { type: 'progress', progress: 1, total: 3, message: 'day 1 of 3' },
    { type: 'progress', progress: 2, total: 3, message: 'day 2 of 3' },
    { type: 'progress', progress: 3, total: 3, message: 'day 3 of 3' },
    { type: 'done', result: report }
  ])
  t.same(await (await post(execute, { command: 'report.build', params: { days: 3 } })).json(), { ok: true, result: report })
  const week = await (await post(execute, { command: 'report.build', params: {} })).json() as { result: { days: number } }
  t.equal(week.result.days, 7, 'a week by default')
})

t.test('report.build stops when its caller goes away', async (t) => {
  let signal: AbortSignal | undefined
  const { execute } = await longRunningShop(t, 50, (app) => app.addHook('onRequest', async (request) => {
    if (request.url === '/reports') signal = request.svc.signal
  }))
  const controller = new AbortController()
  const response = await post(execute, { command: 'report.build', params: { days: 30 }, stream: true }, controller.signal)
  const first = await response.body!.getReader().read()
  t.match(new TextDecoder().decode(first.value), '"progress":1,"total":30')
  controller.abort()
  if (signal?.aborted !== true) await once(signal!, 'abort')
  t.match((signal!.reason as Error).message, /caller went away/)
})
