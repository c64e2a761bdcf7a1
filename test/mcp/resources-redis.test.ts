import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { httpClient, legacyHttpClient } from '../helpers/mcp.js'
import { mcpChannelsApp } from '../helpers/mcp-channels.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'

const redis: RedisServer = await startRedis()
t.teardown(() => redis.stop())

/** One instance of the service (channels open to everyone), sharing `redis` with the others. */
async function instance (t: Test): Promise<{ app: FastifyInstance, url: string }> {
  return await mcpChannelsApp(t, { cart: { description: 'Cart state' } }, { auth: undefined, realtime: { redis: redis.url } })
}

t.test('a publish on one instance is an update to a listener on another, and a read there sees it', async (t) => {
  const a = await instance(t)
  const b = await instance(t)
  const onB = await httpClient(t, b.url)
  const updates: string[] = []
  onB.setNotificationHandler('notifications/resources/updated', (notification) => { updates.push(notification.params.uri) })
  await onB.listen({ resourceSubscriptions: ['svc://cart/carol'] })
  await a.app.svc.publish('cart', 'carol', { items: ['mug'] })
  const deadline = Date.now() + 5000
  while (updates.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(updates, ['svc://cart/carol'])
  const { contents } = await onB.readResource({ uri: 'svc://cart/carol' })
  t.match(JSON.parse((contents[0] as { text: string }).text), { version: Number, state: { items: ['mug'] } })
})

t.test('a key Redis cannot read: the read and the listen fail, nothing is left followed', async (t) => {
  const { app, url } = await instance(t)
  const store = new Redis(redis.url)
  t.teardown(() => store.quit())
  await store.set('svc:Shop/channel/cart/mallory', 'not a hash')
  const client = await httpClient(t, url)
  await t.rejects(client.readResource({ uri: 'svc://cart/mallory' }), { message: /the state of channel "cart" cannot be read: WRONGTYPE/ }, 'the coded message a channel stream gives')
  await t.rejects(client.listen({ resourceSubscriptions: ['svc://cart/mallory'] }))
  await t.rejects(client.listen({ resourceSubscriptions: ['svc://cart/mallory'] }), 'again: the failed follow was let go')
  // Another key still works on the same instance.
  const updates: string[] = []
  client.setNotificationHandler('notifications/resources/updated', (notification) => { updates.push(notification.params.uri) })
  await client.listen({ resourceSubscriptions: ['svc://cart/carol'] })
  await app.svc.publish('cart', 'carol', {})
  const deadline = Date.now() + 5000
  while (updates.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(updates, ['svc://cart/carol'])
})

t.test('2025-11-25: a publish on one instance reaches a subscriber whose session lives on another', async (t) => {
  const a = await instance(t)
  const b = await instance(t)
  const onB = await legacyHttpClient(t, b.url)
  const updates: string[] = []
  onB.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => { updates.push(notification.params.uri) })
  await onB.subscribeResource({ uri: 'svc://cart/dave' })
  // The client opens its session's stream after initialize: publish until it is there.
  const deadline = Date.now() + 5000
  while (updates.length === 0 && Date.now() < deadline) {
    await a.app.svc.publish('cart', 'dave', { items: ['mug'] })
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(updates[0], 'svc://cart/dave')
  const store = new Redis(redis.url)
  t.teardown(() => store.quit())
  await store.set('svc:Shop/channel/cart/eve', 'not a hash')
  await t.rejects(onB.subscribeResource({ uri: 'svc://cart/eve' }), 'a key Redis cannot follow: the subscribe fails')
  await t.rejects(onB.subscribeResource({ uri: 'svc://cart/eve' }), 'again: it was let go')
})
