import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { SESSION_TIMING } from '../../lib/mcp/sessions.js'
import { httpClient, legacyHttpClient } from '../helpers/mcp.js'
import { bearer } from '../helpers/auth.js'
import { mcpChannelsApp } from '../helpers/mcp-channels.js'
import { until } from '../helpers/sse.js'

const alice = bearer('alice-token')
const bob = bearer('bob-token')

async function channelsApp (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<{ app: FastifyInstance, url: string }> {
  return await mcpChannelsApp(t, { cart: { description: 'The cart of one user' } }, options, (app) => {
    app.get('/whoami', { svc: { description: 'Who calls', auth: 'required' } }, async (request) => request.headers.authorization)
  })
}

function updatesOf (client: V1Client): string[] {
  const uris: string[] = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => { uris.push(notification.params.uri) })
  return uris
}

/** Publishes until the client's stream (opened by the client after initialize) has delivered one update. */
async function streamReady (app: FastifyInstance, key: string, updates: string[]): Promise<void> {
  const deadline = Date.now() + 5000
  while (updates.length === 0) {
    if (Date.now() > deadline) throw new Error('the session stream never delivered')
    await app.svc.publish('cart', key, 'warm-up')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  updates.length = 0
}

const sessionOf = (client: V1Client): string => (client.transport as V1Transport).sessionId as string

async function post (url: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(body)
  })
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }

t.test('2025-11-25: subscribe to a key, an update per publish, once however spelled; unsubscribe stops them', async (t) => {
  const { app, url } = await channelsApp(t)
  const client = await legacyHttpClient(t, url, alice)
  t.same(client.getServerCapabilities()?.resources, { subscribe: true })
  t.match(sessionOf(client), /^[0-9a-f-]{36}$/, 'a session held for the client')
  const updates = updatesOf(client)
  await client.subscribeResource({ uri: 'svc://cart/alice' })
  await client.subscribeResource({ uri: 'SVC://%63art/%61lice' })
  await streamReady(app, 'alice', updates)
  await app.svc.publish('cart', 'alice', { items: ['mug'] })
  await app.svc.publish('cart', 'bob', { items: ['tea'] })
  await app.svc.publish('cart', 'alice', { items: [] })
  await until(() => updates.length === 2, 'two updates')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(updates, ['svc://cart/alice', 'svc://cart/alice'], 'one per publish of the key, as first given; none for another key')
  t.match(await client.callTool({ name: 'whoami', arguments: {} }), { content: [{ text: '"Bearer alice-token"' }] }, 'tools in the session, with the request\'s own credential')

  await client.unsubscribeResource({ uri: 'svc://cart/%61lice' })
  await client.unsubscribeResource({ uri: 'svc://cart/never' })
  await client.unsubscribeResource({ uri: 'not a channel' })
  await app.svc.publish('cart', 'alice', { items: ['kettle'] })
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(updates.length, 2, 'nothing after unsubscribe, whatever spelling it used')
})

t.test('2025-06-18 (the v2 client on the 2025 handshake) gets subscriptions too', async (t) => {
  const { app, url } = await channelsApp(t)
  const client = await httpClient(t, url, alice, ['2025-06-18'])
  t.equal(client.getNegotiatedProtocolVersion(), '2025-06-18')
  t.same(client.getServerCapabilities()?.resources, { subscribe: true })
  const updates: string[] = []
  client.setNotificationHandler('notifications/resources/updated', (notification) => { updates.push(notification.params.uri) })
  await client.subscribeResource({ uri: 'svc://cart/alice' })
  const deadline = Date.now() + 5000
  while (updates.length === 0 && Date.now() < deadline) {
    await app.svc.publish('cart', 'alice', 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(updates[0], 'svc://cart/alice')
})

t.test('who may subscribe: exactly who may watch, fail closed; a session is its caller\'s only', async (t) => {
  const { app, url } = await channelsApp(t)
  const asAlice = await legacyHttpClient(t, url, alice)
  await t.rejects(asAlice.subscribeResource({ uri: 'svc://cart/bob' }), { code: -32003, message: /Not allowed to watch channel "cart" key "bob"/ })
  await t.rejects(asAlice.subscribeResource({ uri: 'svc://shop/alice' }), { code: -32602, message: /Resource not found/ })
  const anonymous = await legacyHttpClient(t, url)
  await t.rejects(anonymous.subscribeResource({ uri: 'svc://cart/alice' }), { code: -32003, message: /needs a credential/ })
  const updates = updatesOf(asAlice)
  await app.svc.publish('cart', 'bob', 1)
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(updates, [])

  const session = sessionOf(asAlice)
  const ping = { jsonrpc: '2.0', id: 2, method: 'ping' }
  const stolen = await post(url, ping, { ...bob, 'mcp-session-id': session })
  t.equal(stolen.status, 404, 'another subject cannot use the session')
  t.match(await stolen.json(), { error: { code: -32001, message: /^Session not found/ } })
  const noToken = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } })
  t.equal(noToken.status, 404, 'nor open its stream without a credential')
  t.equal((await post(url, ping, { ...alice, 'mcp-session-id': 'no-such-session' })).status, 404)
  t.equal((await post(url, ping, { ...alice, 'mcp-session-id': session })).status, 200, 'its owner can')
  t.equal((await fetch(url, { method: 'DELETE' })).status, 405, 'without a session, GET and DELETE are still not allowed')
})

t.test('sessions are bounded: per subject (then served without a session), idle expiry, DELETE, and app.close()', async (t) => {
  const { app, url } = await channelsApp(t, {
    mcp: { maxListensPerSubject: 1, maxSubscriptions: 1 },
    channels: { cart: { description: 'Carts' }, open: { description: 'Anyone', authorize: () => true } }
  })
  const first = await legacyHttpClient(t, url, alice)
  t.same(first.getServerCapabilities()?.resources, { subscribe: true })
  await first.subscribeResource({ uri: 'svc://cart/alice' })
  await first.subscribeResource({ uri: 'svc://cart/%61lice' })
  await t.rejects(first.subscribeResource({ uri: 'svc://open/x' }), { code: -32602, message: /at most 1 distinct keys per listen or session \(mcp\.maxSubscriptions\); this would follow 2/ }, 'one key per session here')
  const second = await legacyHttpClient(t, url, alice)
  t.same(second.getServerCapabilities()?.resources, {}, 'past the cap: served as before sessions, no subscribe offered')
  t.equal(sessionOf(second), undefined)
  t.match(await second.callTool({ name: 'whoami', arguments: {} }), { content: [{ text: '"Bearer alice-token"' }] }, 'its tools work')
  await t.rejects(second.subscribeResource({ uri: 'svc://cart/alice' }), { code: -32601 }, 'no session, no subscribe')
  const other = await legacyHttpClient(t, url, bob)
  t.same(other.getServerCapabilities()?.resources, { subscribe: true }, 'another subject is unaffected')

  await (first.transport as V1Transport).terminateSession()
  const third = await legacyHttpClient(t, url, alice)
  t.same(third.getServerCapabilities()?.resources, { subscribe: true }, 'DELETE gave the slot back')

  // A session whose client initialized and left: no request, no stream.
  const idleMs = SESSION_TIMING.idleMs
  SESSION_TIMING.idleMs = 100
  t.teardown(() => { SESSION_TIMING.idleMs = idleMs })
  const { app: quiet, url: quietUrl } = await channelsApp(t, { mcp: { maxListensPerSubject: 1 } })
  const opened = await post(quietUrl, INITIALIZE, alice)
  const session = opened.headers.get('mcp-session-id') as string
  await opened.text()
  t.equal((await post(quietUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...alice, 'mcp-session-id': session })).status, 202)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal((await post(quietUrl, { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...alice, 'mcp-session-id': session })).status, 404, 'expired')
  const again = await post(quietUrl, INITIALIZE, alice)
  t.ok(again.headers.get('mcp-session-id'), 'its slot is free again')
  await again.text()
  const bad = await post(quietUrl, { ...INITIALIZE, params: { protocolVersion: 42 } }, bob)
  t.equal(bad.headers.get('mcp-session-id'), null, 'an initialize the SDK refuses keeps no session')
  await bad.text()
  t.equal((await post(quietUrl, INITIALIZE, bob)).headers.get('mcp-session-id')?.length, 36, 'nor its slot')

  const start = Date.now()
  await app.close()
  await quiet.close()
  t.ok(Date.now() - start < 2000, `app.close() with sessions and their streams open: ${Date.now() - start} ms`)
})
