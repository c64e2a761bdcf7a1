import type { Client } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import type { SvcManifestOptions } from '../../lib/index.js'
import { httpClient, legacyHttpClient } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'
import { bearer } from '../helpers/auth.js'
import { mcpChannelsApp, updatesOf } from '../helpers/mcp-channels.js'
import { until } from '../helpers/sse.js'

const alice = bearer('alice-token')

/** An app with two channels: `cart` (each user watches the key that is their subject) and `room` (its own rule). */
async function channelsApp (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<{ app: FastifyInstance, url: string }> {
  return await mcpChannelsApp(t, {
    cart: { description: 'The cart of one user' },
    room: { description: 'A chat room', authorize: (credential: { sub: string }, key: string) => credential.sub === 'alice' && key.startsWith('open-') }
  }, options)
}

/** The resource's one content, its text parsed. */
async function readState (t: Test, client: Pick<Client, 'readResource'>, uri: string): Promise<{ mimeType?: string, state: unknown }> {
  const { contents } = await client.readResource({ uri })
  t.equal(contents.length, 1)
  const [content] = contents as Array<{ uri: string, mimeType?: string, text: string }>
  t.equal(content.uri, uri)
  return { mimeType: content.mimeType, state: JSON.parse(content.text) }
}

t.test('2026-07-28: a template per channel, read a key, listen and get an update on each publish', async (t) => {
  const { app, url } = await channelsApp(t)
  const client = await httpClient(t, url, alice)
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
  t.same(client.getServerCapabilities()?.resources, { subscribe: true })
  const { resourceTemplates } = await client.listResourceTemplates()
  t.same(resourceTemplates, [
    { name: 'cart', title: 'Cart', uriTemplate: 'svc://cart/{key}', description: 'The cart of one user', mimeType: 'application/json' },
    { name: 'room', title: 'Room', uriTemplate: 'svc://room/{key}', description: 'A chat room', mimeType: 'application/json' }
  ])
  t.same((await client.listResources()).resources, [], 'no fixed resources: a channel has a key per instance')
  t.same(await readState(t, client, 'svc://cart/alice'), { mimeType: 'application/json', state: { version: 0, state: null } }, 'before any publish: the stream\'s first frame')

  const updates = updatesOf(client)
  const subscription = await client.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  t.same(subscription.honoredFilter, { resourceSubscriptions: ['svc://cart/alice'] })
  await app.svc.publish('cart', 'alice', { items: ['mug'] })
  await until(() => updates.length === 1, 'the update')
  t.same(updates, ['svc://cart/alice'])
  t.same((await readState(t, client, 'svc://cart/alice')).state, { version: 1, state: { items: ['mug'] } }, 'read after the update: the new state')
  await app.svc.publish('cart', 'bob', { items: ['tea'] })
  await app.svc.publish('cart', 'alice', { items: [] })
  await until(() => updates.length === 2, 'the second update')
  t.same(updates, ['svc://cart/alice', 'svc://cart/alice'], 'another key\'s publish is not an update of this one')

  await subscription.close()
  t.equal(await subscription.closed, 'local')
  await app.svc.publish('cart', 'alice', { items: ['kettle'] })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(updates.length, 2, 'nothing after the subscription closed')
})

t.test('two streams on one key each get every update once; one closing leaves the other', async (t) => {
  const { app, url } = await channelsApp(t)
  const first = await httpClient(t, url, alice)
  const second = await httpClient(t, url, alice)
  const [toFirst, toSecond] = [updatesOf(first), updatesOf(second)]
  const uri = 'svc://cart/alice'
  const subscriptions = [await first.listen({ resourceSubscriptions: [uri] }), await second.listen({ resourceSubscriptions: [uri, 'svc://room/open-1'] })]
  await app.svc.publish('cart', 'alice', 1)
  await until(() => toFirst.length === 1 && toSecond.length === 1, 'one update on each stream')
  await app.svc.publish('room', 'open-1', 'hello')
  await app.svc.publish('cart', 'alice', 2)
  await until(() => toFirst.length === 2 && toSecond.length === 3, 'the next updates')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(toFirst, [uri, uri], 'no duplicates on the first stream')
  t.same(toSecond, [uri, 'svc://room/open-1', uri], 'nor on the second, which follows two keys')

  await subscriptions[0].close()
  await app.svc.publish('cart', 'alice', 3)
  await until(() => toSecond.length === 4, 'the update after the first stream closed')
  t.equal(toFirst.length, 2)
  t.equal(toSecond[3], uri)
})

t.test('who may read or subscribe: exactly who may watch the channel, fail closed', async (t) => {
  const { app, url } = await channelsApp(t)
  const asAlice = await httpClient(t, url, alice)
  const refused = { code: -32003 }
  await t.rejects(asAlice.readResource({ uri: 'svc://cart/bob' }), { ...refused, message: 'Not allowed to watch channel "cart" key "bob".' }, 'another subject\'s key')
  t.same((await readState(t, asAlice, 'svc://room/open-1')).state, { version: 0, state: null }, 'the channel\'s authorize lets her in')
  await t.rejects(asAlice.readResource({ uri: 'svc://room/closed' }), refused, '…or not')
  const asBob = await httpClient(t, url, { authorization: 'Bearer bob-token' })
  await t.rejects(asBob.readResource({ uri: 'svc://room/open-1' }), refused, 'authorize decides, not the subject')

  const anonymous = await httpClient(t, url)
  await t.rejects(anonymous.readResource({ uri: 'svc://cart/alice' }), { ...refused, message: /needs a credential/ })
  const stolen = await httpClient(t, url, { authorization: 'Bearer stolen' })
  await t.rejects(stolen.readResource({ uri: 'svc://cart/alice' }), { ...refused, message: 'The token was refused.' })
  const twoTokens = await fetch(url, {
    method: 'POST',
    headers: [['content-type', 'application/json'], ['accept', 'application/json, text/event-stream'], ['authorization', 'Bearer alice-token'], ['authorization', 'Bearer alice-token']],
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: ['svc://cart/alice'] } } })
  })
  t.match(await twoTokens.json(), { id: 1, error: { ...refused, message: 'The token was refused.' } }, 'two Authorization headers are refused, as on every route')

  // A listen naming one key it may not watch is refused whole: nothing is followed, not even the keys it may.
  const updates = updatesOf(asAlice)
  await t.rejects(asAlice.listen({ resourceSubscriptions: ['svc://cart/alice', 'svc://cart/bob'] }), { ...refused, message: /key "bob"/ })
  await t.rejects(anonymous.listen({ resourceSubscriptions: ['svc://cart/alice'] }), refused)
  await app.svc.publish('cart', 'alice', { items: [] })
  await app.svc.publish('cart', 'bob', { items: [] })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(updates, [])

  for (const uri of ['svc://shop/alice', 'svc://cart/', 'svc://cart/%E0%A4', 'svc://cart', 'https://shop.example/cart/alice', 'svc://Cart/alice']) {
    await t.rejects(asAlice.readResource({ uri }), { code: -32602, data: { uri }, message: /^Resource not found: .* names no channel key \(svc:\/\/<channel>\/<key>; channels: cart, room\)\.$/ }, `${uri}: not found`)
    await t.rejects(asAlice.listen({ resourceSubscriptions: [uri] }), { code: -32602 }, `${uri}: no listen`)
  }
  const hostile = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...alice },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: [{ uri: 'svc://cart/alice' }] } } })
  })
  t.match(await hostile.json(), { jsonrpc: '2.0', id: 'x', error: { code: -32602, data: { uri: '[object Object]' } } }, 'a URI that is not a string names nothing')
})

t.test('keys are percent-encoded in the URI, as the template expands them', async (t) => {
  const { app, url } = await channelsApp(t, { auth: undefined })
  const client = await httpClient(t, url)
  await app.svc.publish('cart', 'a/b c', 'slash and space')
  t.same((await readState(t, client, 'svc://cart/a%2Fb%20c')).state, { version: 1, state: 'slash and space' })
  const updates = updatesOf(client)
  await client.listen({ resourceSubscriptions: ['svc://cart/a%2Fb%20c'] })
  await app.svc.publish('cart', 'a/b c', 'again')
  await until(() => updates.length === 1, 'the update')
  t.same(updates, ['svc://cart/a%2Fb%20c'], 'the update names the URI as subscribed')
})

t.test('without auth everyone reads every key; a listen without resources follows nothing', async (t) => {
  const { url } = await channelsApp(t, { auth: undefined, channels: { cart: { description: 'Cart' } } })
  const client = await httpClient(t, url)
  t.same((await readState(t, client, 'svc://cart/anyone')).state, { version: 0, state: null })
  const subscription = await client.listen({ toolsListChanged: true })
  t.same(subscription.honoredFilter, {}, 'the tools never change')
  t.equal(await subscription.closed, 'graceful')
})

t.test('2025 revisions: resources read in a session that offers subscriptions (test/mcp/subscriptions.test.ts)', async (t) => {
  const { app, url } = await channelsApp(t)
  await app.svc.publish('cart', 'alice', { items: ['mug'] })
  const v1 = await legacyHttpClient(t, url, alice)
  t.same(v1.getServerCapabilities()?.resources, { subscribe: true }, 'the session has a stream to send updates on')
  t.same((await v1.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate), ['svc://cart/{key}', 'svc://room/{key}'])
  const { contents } = await v1.readResource({ uri: 'svc://cart/alice' })
  t.same(contents, [{ uri: 'svc://cart/alice', mimeType: 'application/json', text: '{"version":1,"state":{"items":["mug"]}}' }])
  await t.rejects(v1.readResource({ uri: 'svc://cart/bob' }), { code: -32003 })
  const v2 = await httpClient(t, url, alice, ['2025-06-18'])
  t.same(v2.getServerCapabilities()?.resources, { subscribe: true })
  t.same((await readState(t, v2, 'svc://cart/alice')).state, { version: 1, state: { items: ['mug'] } })
})

t.test('closing the app ends the listen streams gracefully', async (t) => {
  const { app, url } = await channelsApp(t)
  const client = await httpClient(t, url, alice)
  const subscription = await client.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  await app.close()
  t.equal(await subscription.closed, 'graceful')
})

t.test('no channels, no resources: layout 1.0, and 0.5.0 without channels', async (t) => {
  const shop = await buildShop({ mcp: true })
  const client = await httpClient(t, `${await listening(t, shop)}/mcp`, { authorization: `Bearer ${DEMO_TOKEN}` })
  t.equal(client.getServerCapabilities()?.resources, undefined)
  const { url } = await channelsApp(t, { channels: {} })
  const noChannels = await httpClient(t, url, alice)
  t.equal(noChannels.getServerCapabilities()?.resources, undefined)
  t.same(noChannels.getServerCapabilities(), { tools: {} })
  const subscription = await noChannels.listen({ resourceSubscriptions: ['svc://cart/alice'] })
  t.same(subscription.honoredFilter, {}, 'a listen for resources is honored with nothing')
})

t.test('the shop in layout 0.5.0: its cart channel, for the token\'s subject', async (t) => {
  const shop = await buildShop({ mcp: true, layout: '0.5.0' })
  const client = await httpClient(t, `${await listening(t, shop)}/mcp`, { authorization: `Bearer ${DEMO_TOKEN}` })
  t.same((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate), ['svc://cart/{key}'])
  const updates = updatesOf(client)
  await client.listen({ resourceSubscriptions: ['svc://cart/demo-user'] })
  await shop.svc.publish('cart', 'demo-user', { items: [{ sku: 'mug', quantity: 1 }], total: 8 })
  await until(() => updates.length === 1, 'the update')
  t.same((await readState(t, client, 'svc://cart/demo-user')).state, { version: 1, state: { items: [{ sku: 'mug', quantity: 1 }], total: 8 } })
})
