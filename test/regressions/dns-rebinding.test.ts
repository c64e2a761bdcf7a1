import { request as httpRequest } from 'node:http'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// Measured: POST /mcp and /svc/execute with `Origin: http://evil.example` and `Host: evil.example` answered
// 200 and ran commands: a page whose DNS name was rebound to 127.0.0.1 could act on a local service. Every
// endpoint that acts now checks Origin, and Host on a loopback connection, before anything else.

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } }
}

async function localService (t: Test, options: Partial<SvcManifestOptions> = {}, host = '127.0.0.1'): Promise<{ app: FastifyInstance, port: number, ran: string[] }> {
  const ran: string[] = []
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    mcp: true,
    events: { 'cart.updated': { description: 'Cart changed' } },
    channels: { cart: { description: 'Cart state' } },
    ...options
  })
  app.post('/cart/clear', { svc: { name: 'cart.clear', description: 'Empties the cart', params: Type.Object({}) } }, async () => {
    ran.push('cart.clear')
    return { cleared: true }
  })
  await app.listen({ host, port: 0 })
  t.teardown(() => app.close())
  return { app, port: (app.server.address() as { port: number }).port, ran }
}

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string }

/** A raw request with exactly these headers (fetch would not let a test set Host). */
function send (port: number, method: string, path: string, headers: Record<string, string>, body?: unknown, address = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const all: Record<string, string> = { ...headers }
    if (payload !== undefined) all['content-type'] = 'application/json'
    if (payload !== undefined && method === 'POST' && path.endsWith('/mcp')) all.accept = 'application/json, text/event-stream'
    const request = httpRequest({ host: address, port, method, path, headers: all }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      // A stream that was let in stays open: the status and headers are all the test needs of it.
      if (response.headers['content-type'] === 'text/event-stream') {
        response.destroy()
        resolve({ status: response.statusCode as number, headers: response.headers, body: '' })
        return
      }
      response.on('data', (chunk: string) => { text += chunk })
      response.on('end', () => resolve({ status: response.statusCode as number, headers: response.headers, body: text }))
    })
    request.on('error', reject)
    request.end(payload)
  })
}

const execute = { command: 'cart.clear' }

t.test('the measured attack: a rebound page is refused on every endpoint that acts, and nothing runs', async (t) => {
  const { port, ran } = await localService(t)
  const evil = { host: 'evil.example', origin: 'http://evil.example' }
  const exec = await send(port, 'POST', '/svc/execute', evil, execute)
  t.equal(exec.status, 403)
  t.same(JSON.parse(exec.body), {
    ok: false,
    error: {
      code: 'FORBIDDEN_ORIGIN',
      status: 403,
      cause: 'FST_SVC_FORBIDDEN_ORIGIN',
      message: 'Requests from origin "http://evil.example" may not act on this service. The server accepts its baseUrl\'s origin and the allowedOrigins option.'
    }
  })
  t.equal(JSON.parse((await send(port, 'POST', '/svc/pipeline', evil, { steps: [execute] })).body).error.code, 'FORBIDDEN_ORIGIN')
  const mcp = await send(port, 'POST', '/mcp', evil, initialize)
  t.equal(mcp.status, 403)
  t.match(JSON.parse(mcp.body), { jsonrpc: '2.0', id: null, error: { code: -32000, message: /origin "http:\/\/evil.example"/ } })
  const events = await send(port, 'GET', '/svc/events', evil)
  t.equal(events.status, 403)
  t.match(JSON.parse(events.body), { statusCode: 403, code: 'FST_SVC_FORBIDDEN_ORIGIN' })
  t.equal((await send(port, 'GET', '/svc/channels/cart/1', evil)).status, 403)
  t.same(ran, [])
})

t.test('a rebound Host without Origin (a non-browser client of the rebound name) is FORBIDDEN_HOST', async (t) => {
  const { port, ran } = await localService(t)
  for (const host of ['evil.example', 'evil.example:80', `evil.example:${port}`, '127.0.0.1.evil.example', 'localhost.evil.example', 'user@localhost', 'localhost/path', 'local host']) {
    const answer = await send(port, 'POST', '/svc/execute', { host }, execute)
    t.equal(answer.status, 403, JSON.stringify(host))
    t.equal(JSON.parse(answer.body).error.code, 'FORBIDDEN_HOST', JSON.stringify(host))
  }
  const mcp = await send(port, 'POST', '/mcp', { host: 'evil.example' }, initialize)
  t.equal(mcp.status, 403)
  t.match(JSON.parse(mcp.body).error.message, /Host "evil.example" is not a name of this service/)
  t.equal((await send(port, 'GET', '/svc/events', { host: 'evil.example' })).status, 403)
  t.same(ran, [])
})

t.test('an HTTP/1.0 request without Host on a loopback connection is refused', async (t) => {
  const { port, ran } = await localService(t)
  const { connect } = await import('node:net')
  const body = JSON.stringify(execute)
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end(`POST /svc/execute HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    })
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
  t.match(answer, /^HTTP\/1\.1 403/)
  t.match(answer, '"code":"FORBIDDEN_HOST"')
  t.same(ran, [])
})

t.test('what local development sends is let in: loopback names and origins, baseUrl\'s origin and host', async (t) => {
  const { port, ran } = await localService(t)
  const welcome: Array<Record<string, string>> = [
    { host: `127.0.0.1:${port}` },
    { host: `localhost:${port}`, origin: 'http://localhost:5173' },
    { host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` },
    { host: `[::1]:${port}`, origin: 'http://[::1]:3000' },
    { host: 'shop.example', origin: 'https://shop.example' },
    { host: 'SHOP.example:443', origin: 'https://SHOP.EXAMPLE:443' }
  ]
  for (const headers of welcome) {
    const answer = await send(port, 'POST', '/svc/execute', headers, execute)
    t.equal(answer.status, 200, JSON.stringify(headers))
  }
  t.equal((await send(port, 'POST', '/mcp', { host: `localhost:${port}`, origin: 'http://localhost:6274' }, initialize)).status, 200, 'the MCP Inspector\'s page')
  t.equal((await send(port, 'GET', '/svc/events', { host: `localhost:${port}` })).status, 200, 'the events stream')
  t.equal(ran.length, welcome.length)
})

t.test('neighbours of a good origin are refused: null, other schemes, ports of baseUrl, look-alikes', async (t) => {
  const { port, ran } = await localService(t)
  const host = `127.0.0.1:${port}`
  for (const origin of ['null', 'file://', 'chrome-extension://abc', 'https://shop.example:8443', 'http://shop.example', 'https://shop.example.evil.example', 'https://evil.example/https://shop.example', 'not a url', '']) {
    const answer = await send(port, 'POST', '/svc/execute', { host, origin }, execute)
    t.equal(answer.status, 403, origin)
    t.equal(JSON.parse(answer.body).error.code, 'FORBIDDEN_ORIGIN', origin)
  }
  t.same(ran, [])
})

t.test('the manifest stays public: another origin and another host still read it', async (t) => {
  const { port } = await localService(t)
  const answer = await send(port, 'GET', '/.well-known/svc.json', { host: 'evil.example', origin: 'http://evil.example' })
  t.equal(answer.status, 200)
  t.equal(JSON.parse(answer.body).name, 'Shop')
})

t.test('allowedOrigins and allowedHosts: a LAN name, one port only, and "*"', async (t) => {
  const { port, ran } = await localService(t, { allowedOrigins: ['http://devbox.lan:3000'], allowedHosts: ['devbox.lan', 'proxy.lan:8080'] })
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'devbox.lan:3000', origin: 'http://devbox.lan:3000' }, execute)).status, 200)
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'devbox.lan', origin: 'http://devbox.lan:4000' }, execute)).status, 403, 'another port of an allowed origin')
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'proxy.lan:8080' }, execute)).status, 200)
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'proxy.lan:8081' }, execute)).status, 403, 'a host allowed with one port only')
  t.equal(ran.length, 2)
  const open = await localService(t, { allowedOrigins: ['*'] })
  t.equal((await send(open.port, 'POST', '/svc/execute', { host: `127.0.0.1:${open.port}`, origin: 'null' }, execute)).status, 200, '"*" accepts every origin')
  t.equal((await send(open.port, 'POST', '/svc/execute', { host: 'evil.example', origin: 'http://evil.example' }, execute)).status, 403, '"*" does not open the Host check')
})

t.test('a server listening on every address checks Host on its loopback connections', async (t) => {
  const { port, ran } = await localService(t, {}, '0.0.0.0')
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'evil.example' }, execute)).status, 403)
  t.equal((await send(port, 'POST', '/svc/execute', { host: `localhost:${port}` }, execute)).status, 200)
  t.equal(ran.length, 1)
})

t.test('IPv6 loopback: [::1] connections are checked the same way', async (t) => {
  const probe = Fastify()
  const ipv6 = await probe.listen({ host: '::1', port: 0 }).then(() => true, () => false)
  await probe.close()
  if (!ipv6) {
    t.comment('this machine has no IPv6 loopback')
    return
  }
  const { port, ran } = await localService(t, {}, '::1')
  t.equal((await send(port, 'POST', '/svc/execute', { host: 'evil.example' }, execute, '::1')).status, 403)
  t.equal((await send(port, 'POST', '/svc/execute', { host: `[::1]:${port}` }, execute, '::1')).status, 200)
  t.equal(ran.length, 1)
  const dual = await localService(t, {}, '::')
  t.equal((await send(dual.port, 'POST', '/svc/execute', { host: 'evil.example' }, execute)).status, 403, 'a dual-stack socket sees 127.0.0.1 as ::ffff:127.0.0.1')
})

t.test('app.inject() has no connection: the Origin rule applies, the Host rule does not', async (t) => {
  const { app } = await localService(t)
  const evil = await app.inject({ method: 'POST', url: '/svc/execute', headers: { origin: 'http://evil.example' }, payload: execute })
  t.equal(evil.json().error.code, 'FORBIDDEN_ORIGIN')
  const anyHost = await app.inject({ method: 'POST', url: '/svc/execute', headers: { host: 'tenant.example' }, payload: execute })
  t.equal(anyHost.statusCode, 200)
})

t.test('the options are checked when the plugin loads', async (t) => {
  const cases: Array<[Partial<SvcManifestOptions>, string]> = [
    [{ allowedOrigins: 'http://a.example' as unknown as string[] }, '"allowedOrigins" must be an array of origins'],
    [{ allowedOrigins: ['http://a.example/'] }, '"allowedOrigins[0]" must be an array of origins such as "https://app.example" (scheme, host and port only), or "*"; got "http://a.example/".'],
    [{ allowedOrigins: ['http://ok.example', 'http://a.example/path'] }, '"allowedOrigins[1]"'],
    [{ allowedOrigins: ['ftp://a.example'] }, '"allowedOrigins[0]"'],
    [{ allowedOrigins: [5 as unknown as string] }, '"allowedOrigins[0]"'],
    [{ allowedHosts: 'a' as unknown as string[] }, '"allowedHosts" must be an array of host names'],
    [{ allowedHosts: ['http://a.example'] }, '"allowedHosts[0]" must be an array of host names such as "shop.local" or "shop.local:8080"; got "http://a.example".'],
    [{ allowedHosts: ['a.example/x'] }, '"allowedHosts[0]"'],
    [{ allowedHosts: [''] }, '"allowedHosts[0]"'],
    [{ allowedHosts: [null as unknown as string] }, '"allowedHosts[0]"']
  ]
  for (const [options, message] of cases) {
    const app = Fastify()
    const error = await app.register(svcManifest, { ...requiredOptions, ...options }).then(() => undefined, (error: Error) => error)
    t.equal((error as { code?: string } | undefined)?.code, 'FST_SVC_INVALID_OPTION', JSON.stringify(options))
    t.match(error?.message, message)
  }
})

t.test('the MCP endpoint of the SDK\'s own client still works from loopback', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true })
  app.get('/ping', { svc: { name: 'ping', description: 'Ping' } }, async () => ({ pong: true }))
  const url = await listening(t, app)
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
  t.teardown(() => client.close())
  t.same((await client.listTools()).tools.map((tool) => tool.name), ['ping'])
})
