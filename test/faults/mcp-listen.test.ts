import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { logCollector, settledMemory } from '../helpers/process.js'
import { httpClient } from '../helpers/mcp.js'
import { bearer, TOKENS } from '../helpers/auth.js'
import { mcpChannelsApp, pingRoute, updatesOf } from '../helpers/mcp-channels.js'
import { pause, until } from '../helpers/sse.js'

const alice = bearer('alice-token')
const bob = bearer('bob-token')

async function app (t: Test, options: Partial<SvcManifestOptions> = {}, logs?: Writable): Promise<{ app: FastifyInstance, url: string, sockets: Socket[] }> {
  const sockets: Socket[] = []
  const channels = { cart: { description: 'Cart' }, open: { description: 'Anyone', authorize: () => true } }
  const { app, url } = await mcpChannelsApp(t, channels, options, (fastify) => {
    pingRoute(fastify)
    fastify.server.on('connection', (socket: Socket) => sockets.push(socket))
  }, logs === undefined ? {} : { logger: { level: 'warn', stream: logs } })
  return { app, url, sockets }
}

/** `text` with the characters chosen by `mask` percent-encoded. */
function spelled (text: string, mask: number): string {
  return [...text].map((char, index) => (mask & (1 << index)) === 0 ? char : `%${char.charCodeAt(0).toString(16)}`).join('')
}

/** The headers and body the SDK's v2 client sends for a listen, as a raw request can replay them. */
async function listenRequest (url: string, headers: Record<string, string>): Promise<{ headers: Record<string, string>, body: Record<string, unknown> }> {
  let captured: { headers: Record<string, string>, body: Record<string, unknown> } | undefined
  const client = new Client({ name: 'capture', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body ?? 'null'))
      if (body?.method === 'subscriptions/listen') captured = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body }
      return await fetch(input, init)
    }
  }))
  const subscription = await client.listen({ resourceSubscriptions: ['svc://open/x'] })
  await subscription.close()
  await client.close()
  return captured as { headers: Record<string, string>, body: Record<string, unknown> }
}

/** Sends a listen for `uris` on a raw socket that never reads what comes back. */
async function stalledListen (url: string, headers: Record<string, string>, uris: string[]): Promise<Socket> {
  const template = await listenRequest(url, headers)
  const body = JSON.stringify({ ...template.body, params: { ...(template.body.params as object), notifications: { resourceSubscriptions: uris } } })
  const { port } = new URL(url)
  const socket = connect(Number(port), '127.0.0.1')
  await once(socket, 'connect')
  socket.pause()
  const lines = Object.entries({ ...template.headers, host: `127.0.0.1:${port}`, 'content-length': String(Buffer.byteLength(body)) })
    .filter(([name]) => name !== 'connection').map(([name, value]) => `${name}: ${value}`)
  socket.write(`POST /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`)
  return socket
}

t.test('one listen, one key in 4,096 spellings: accepted, one notification per publish, under the URI first given', async (t) => {
  const { app: service, url } = await app(t)
  const spellings: string[] = []
  for (const scheme of ['svc', 'SVC', 'Svc', 'sVc']) {
    for (const channel of ['cart', '%63art', 'c%61rt', '%63%61rt']) {
      for (let mask = 0; mask < 256; mask++) spellings.push(`${scheme}://${channel}/${spelled('alicexyz', mask)}`)
    }
  }
  t.equal(new Set(spellings).size, 4096)
  TOKENS['alicexyz-token'] = { sub: 'alicexyz' }
  t.teardown(() => { delete TOKENS['alicexyz-token'] })
  const client = await httpClient(t, url, { authorization: 'Bearer alicexyz-token' })
  const updates = updatesOf(client)
  const subscription = await client.listen({ resourceSubscriptions: spellings })
  t.same(subscription.honoredFilter, { resourceSubscriptions: ['svc://cart/alicexyz'] }, 'one key, as first given')
  const second = await httpClient(t, url, { authorization: 'Bearer alicexyz-token' })
  const toSecond = updatesOf(second)
  await second.listen({ resourceSubscriptions: [spellings[4095], spellings[1]] })

  const started = Date.now()
  for (let i = 0; i < 20; i++) await service.svc.publish('cart', 'alicexyz', i)
  await until(() => updates.length === 20 && toSecond.length === 20, '20 updates on each')
  const took = Date.now() - started
  await pause(100)
  t.equal(updates.length, 20, 'exactly one notification per publish')
  t.ok(updates.every((uri) => uri === 'svc://cart/alicexyz'))
  t.ok(toSecond.every((uri) => uri === spellings[4095]), 'the other listen\'s own first spelling')
  t.ok(took < 2000, `20 publishes delivered in ${took} ms`)
})

t.test('at most mcp.maxSubscriptions distinct keys per listen: an invalid-params error naming the limit', async (t) => {
  const { url } = await app(t, { mcp: { maxSubscriptions: 3 } })
  const client = await httpClient(t, url, alice)
  const keys = (n: number): string[] => Array.from({ length: n }, (_, index) => `svc://open/key-${index}`)
  t.ok(await client.listen({ resourceSubscriptions: [...keys(3), 'svc://open/key-%30'] }), 'three keys, one spelled twice')
  await t.rejects(client.listen({ resourceSubscriptions: keys(4) }), { code: -32602, message: /at most 3 distinct keys per listen or session \(mcp\.maxSubscriptions\); this would follow 4/ })
  const { url: defaults } = await app(t)
  const byDefault = await httpClient(t, defaults, alice)
  t.ok(await byDefault.listen({ resourceSubscriptions: keys(100) }), '100 by default')
  await t.rejects(byDefault.listen({ resourceSubscriptions: keys(101) }), { code: -32602, message: /at most 100 distinct keys/ })
})

t.test('a raw listen that never reads is dropped past maxBufferBytes; the reading one gets everything; memory stays bounded', async (t) => {
  const logs = logCollector()
  const maxBufferBytes = 256 * 1024
  const { app: service, url, sockets } = await app(t, { realtime: { maxBufferBytes } }, logs.stream)
  const key = 'k'.repeat(32 * 1024)
  const uri = `svc://open/${key}`
  const stalled = await stalledListen(url, alice, [uri])
  t.teardown(() => stalled.destroy())
  const reader = await httpClient(t, url, bob)
  // Counted, not kept: the reader's own copies would be the memory measured.
  const updates = { length: 0, wrong: 0 }
  reader.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.length++
    if (notification.params.uri !== uri) updates.wrong++
  })
  await reader.listen({ resourceSubscriptions: [uri] })
  await pause(100)
  const stalledOnServer = sockets.find((socket) => socket.remotePort === stalled.localPort) as Socket
  t.ok(stalledOnServer, 'the stalled listen reached the server')

  const before = await settledMemory()
  const rounds = 60
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 5; i++) await service.svc.publish('open', key, round)
    await until(() => updates.length === (round + 1) * 5, `round ${round}`)
  }
  const after = await settledMemory()
  const sent = (rounds * 5 * uri.length) / 2 ** 20
  t.equal(updates.length, rounds * 5, `the reading listen received all ${sent.toFixed(0)} MiB of notifications`)
  t.equal(updates.wrong, 0)
  const dropped = logs.lines.find((line) => /MCP stream reader does not read/.test(String(line.msg)))
  t.ok(dropped, 'the drop is logged')
  t.equal(dropped?.limit, maxBufferBytes)
  t.ok(stalledOnServer.destroyed, 'the stalled listen is disconnected by the server')
  const grown = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20
  t.ok(grown < 4, `memory grew ${grown.toFixed(1)} MiB while ${sent.toFixed(0)} MiB went to a listen that never read`)
})

t.test('listens are capped per subject and in all; others are unaffected', async (t) => {
  const { url } = await app(t, { mcp: { maxListensPerSubject: 2, maxListens: 3 } })
  const asAlice = await httpClient(t, url, alice)
  const asBob = await httpClient(t, url, bob)
  const first = await asAlice.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  await asAlice.listen({ resourceSubscriptions: ['svc://open/a'] })
  await t.rejects(asAlice.listen({ resourceSubscriptions: ['svc://cart/alice'] }), {
    code: -32004,
    message: /already holds 2 open listens .*mcp\.maxListensPerSubject: 2/,
    data: { limit: 'mcp.maxListensPerSubject', value: 2 }
  })
  await asBob.listen({ resourceSubscriptions: ['svc://cart/bob'] })
  await t.rejects(asBob.listen({ resourceSubscriptions: ['svc://cart/bob'] }), { code: -32004, data: { limit: 'mcp.maxListens', value: 3 } }, 'the total')
  await first.close()
  let second: unknown
  const deadline = Date.now() + 2000
  while (second === undefined && Date.now() < deadline) {
    second = await asBob.listen({ resourceSubscriptions: ['svc://cart/bob'] }).catch(async () => { await pause(20) })
  }
  t.ok(second, 'a closed listen gives its slot back')

  // Without a credential, listens are counted per remote address.
  const { url: open } = await app(t, { auth: undefined, mcp: { maxListensPerSubject: 1 } })
  const anonymous = await httpClient(t, open)
  await anonymous.listen({ resourceSubscriptions: ['svc://cart/x'] })
  await t.rejects(anonymous.listen({ resourceSubscriptions: ['svc://cart/x'] }), { code: -32004, data: { limit: 'mcp.maxListensPerSubject' } })
})

t.test('without channels a listen for resources is honored with nothing, and ends', async (t) => {
  const { url } = await app(t, { channels: {} })
  const client = await httpClient(t, url, alice)
  const subscription = await client.listen({ resourceSubscriptions: ['svc://cart/x'] })
  t.same(subscription.honoredFilter, {})
  t.equal(await subscription.closed, 'graceful')
})

t.test('app.close() ends open listens within 1 s, a stalled one with unsent bytes too', async (t) => {
  const { app: service, url, sockets } = await app(t)
  const client = await httpClient(t, url, alice)
  const subscription = await client.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  const key = 'k'.repeat(32 * 1024)
  const stalled = await stalledListen(url, bob, [`svc://open/${key}`])
  t.teardown(() => stalled.destroy())
  await pause(100)
  const stalledOnServer = sockets.find((socket) => socket.remotePort === stalled.localPort) as Socket
  for (let i = 0; i < 200 && stalledOnServer.writableLength === 0; i++) await service.svc.publish('open', key, i)
  t.ok(stalledOnServer.writableLength > 0, 'bytes are queued for the stalled listen')
  const started = Date.now()
  await service.close()
  const took = Date.now() - started
  t.ok(took < 2000, `closed in ${took} ms`)
  t.ok(stalledOnServer.destroyed)
  t.equal(await subscription.closed, 'graceful', 'the reading listen ended cleanly')
})

t.test('a client that leaves while its listen is checked leaves no slot and no stream behind', async (t) => {
  let open: () => void = () => {}
  const gate = new Promise<void>((resolve) => { open = resolve })
  let entered: () => void = () => {}
  const checking = new Promise<void>((resolve) => { entered = resolve })
  const { url } = await app(t, {
    mcp: { maxListensPerSubject: 1 },
    auth: {
      type: 'bearer',
      description: 'Slow tokens',
      async verify (token: string) {
        if (token === 'slow') {
          entered()
          await gate
        }
        return { sub: 'carol' }
      }
    }
  })
  const template = await listenRequest(url, { authorization: 'Bearer fast' })
  const body = JSON.stringify({ ...template.body, params: { ...(template.body.params as object), notifications: { resourceSubscriptions: ['svc://cart/carol'] } } })
  const { port } = new URL(url)
  const socket = connect(Number(port), '127.0.0.1')
  await once(socket, 'connect')
  const lines = Object.entries({ ...template.headers, authorization: 'Bearer slow', host: `127.0.0.1:${port}`, 'content-length': String(Buffer.byteLength(body)) })
    .filter(([name]) => name !== 'connection').map(([name, value]) => `${name}: ${value}`)
  socket.write(`POST /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`)
  await checking
  socket.destroy()
  await pause(50)
  open()
  await pause(200)
  const client = await httpClient(t, url, { authorization: 'Bearer fast' })
  t.ok(await client.listen({ resourceSubscriptions: ['svc://cart/carol'] }), 'carol\'s one slot is free')
})

t.test('app.close() is not held by a connection a client opened and never used', async (t) => {
  const { app: service, url, sockets } = await app(t)
  const client = await httpClient(t, url, alice)
  await client.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  const { port } = new URL(url)
  const unused = connect(Number(port), '127.0.0.1')
  t.teardown(() => unused.destroy())
  await once(unused, 'connect')
  await until(() => sockets.some((socket) => socket.remotePort === unused.localPort), 'the server to accept it')
  const started = Date.now()
  await service.close()
  const took = Date.now() - started
  t.ok(took < 2000, `closed in ${took} ms (Node alone waits for its headers timeout, 60 s)`)
})

/** A 2025 session (initialize over fetch) subscribed to `uri`, and its stream opened on a raw socket that never reads. */
async function stalledSession (url: string, uri: string): Promise<Socket> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...alice }
  const opened = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) })
  const session = opened.headers.get('mcp-session-id') as string
  await opened.text()
  const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
  await (await fetch(url, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text()
  const subscribed = await fetch(url, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri } }) })
  if (!(await subscribed.text()).includes('"result":{}')) throw new Error('the subscribe failed')
  const { port } = new URL(url)
  const socket = connect(Number(port), '127.0.0.1')
  await once(socket, 'connect')
  socket.pause()
  socket.write(`GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/event-stream\r\nauthorization: ${alice.authorization}\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n`)
  await pause(100)
  return socket
}

t.test('a session\'s stream whose reader stops reading is dropped past maxBufferBytes, and app.close() does not wait for it', async (t) => {
  const logs = logCollector()
  const maxBufferBytes = 256 * 1024
  const { app: service, url, sockets } = await app(t, { realtime: { maxBufferBytes } }, logs.stream)
  const key = 'k'.repeat(32 * 1024)
  const stalled = await stalledSession(url, `svc://open/${key}`)
  t.teardown(() => stalled.destroy())
  const onServer = sockets.find((socket) => socket.remotePort === stalled.localPort) as Socket
  for (let i = 0; i < 400 && !onServer.destroyed; i++) {
    await service.svc.publish('open', key, i)
    await pause(1)
  }
  t.ok(onServer.destroyed, 'disconnected by the server')
  t.ok(logs.lines.some((line) => /MCP stream reader does not read/.test(String(line.msg))), 'the drop is logged')

  const { app: other, url: otherUrl, sockets: otherSockets } = await app(t)
  const second = await stalledSession(otherUrl, `svc://open/${key}`)
  t.teardown(() => second.destroy())
  const secondOnServer = otherSockets.find((socket) => socket.remotePort === second.localPort) as Socket
  for (let i = 0; i < 200 && secondOnServer.writableLength === 0; i++) await other.svc.publish('open', key, i)
  t.ok(secondOnServer.writableLength > 0, 'bytes are queued for the stalled session stream')
  const started = Date.now()
  await other.close()
  t.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`)
  t.ok(secondOnServer.destroyed)
})
