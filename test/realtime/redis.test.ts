import Fastify from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { freePort, startInstance, startRedis, type RedisServer, type ServiceInstance } from '../helpers/redis.js'
import { pause, subscribe } from '../helpers/sse.js'
import { bearer, tokenAuth } from '../helpers/auth.js'

const redis: RedisServer = await startRedis()
t.teardown(() => redis.stop())

/** One instance of the shop service, sharing `redis` with the others. */
async function instance (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<ServiceInstance> {
  return await startInstance(t, redis.url, {
    svc: '0.5.0',
    auth: tokenAuth,
    events: { 'cart.updated': { description: 'Cart changed' }, news: { description: 'News' } },
    channels: { cart: { description: 'Cart state' } },
    ...options
  }, {
    routes: (app) => { app.get('/ping', { svc: { description: 'Ping' } }, async () => ({ pong: true })) }
  })
}

t.test('an event emitted on A reaches subscribers on B, targeted ones only their subject', async (t) => {
  const a = await instance(t)
  const b = await instance(t)
  const aliceOnB = await subscribe(b.origin, '/svc/events', bearer('alice-token'))
  const bobOnB = await subscribe(b.origin, '/svc/events', bearer('bob-token'))
  const aliceOnA = await subscribe(a.origin, '/svc/events', bearer('alice-token'))

  a.app.svc.emit('cart.updated', { items: ['mug'] }, { to: 'alice' })
  a.app.svc.emit('news', { headline: 'hello' })
  for (const alice of [aliceOnB, aliceOnA]) {
    t.same((await alice.frameCount(2)).map(({ event, data }) => ({ event, data })), [
      { event: 'cart.updated', data: { items: ['mug'] } },
      { event: 'news', data: { headline: 'hello' } }
    ])
  }
  t.same((await bobOnB.frameCount(1)).map((frame) => frame.data), [{ headline: 'hello' }], 'bob gets the broadcast only')
  await pause(50)
  t.equal(bobOnB.frames.length, 1)

  b.app.svc.emit('news', { from: 'b' })
  t.same((await aliceOnA.frameCount(3))[2].data, { from: 'b' }, 'and back from B to A')
  for (const subscriber of [aliceOnA, aliceOnB, bobOnB]) subscriber.close()
})

t.test('a publish on A is the first frame on C, an instance started after it; versions are shared', async (t) => {
  const a = await instance(t)
  const watcherOnA = await subscribe(a.origin, '/svc/channels/cart/alice', bearer('alice-token'))
  await watcherOnA.frameCount(1)
  t.equal(await a.app.svc.publish('cart', 'alice', { items: ['mug'] }), 1)
  const second = await a.app.svc.publish('cart', 'alice', { items: ['mug', 'tea'] })
  t.equal(second, 2)

  const c = await instance(t)
  const watcherOnC = await subscribe(c.origin, '/svc/channels/cart/alice', bearer('alice-token'))
  t.same((await watcherOnC.frameCount(1))[0].data, { version: second, state: { items: ['mug', 'tea'] } })

  t.equal(await c.app.svc.publish('cart', 'alice', { items: [] }), second + 1, 'C continues the shared version')
  for (const watcher of [watcherOnA, watcherOnC]) {
    await watcher.until(() => watcher.frames.some((frame) => (frame.data as { version: number }).version === second + 1), 3000, 'the publish from C')
  }
  t.same(watcherOnA.frames.map((frame) => (frame.data as { version: number }).version), [0, 1, 2, 3])
  watcherOnA.close()
  watcherOnC.close()
})

t.test('two services on one Redis do not see each other\'s events or states', async (t) => {
  const shop = await instance(t)
  const other = await instance(t, { name: 'Shop*' })
  const onOther = await subscribe(other.origin, '/svc/events', bearer('alice-token'))
  const stateOnOther = await subscribe(other.origin, '/svc/channels/cart/bob', bearer('bob-token'))
  await stateOnOther.frameCount(1)
  shop.app.svc.emit('news', { for: 'Shop' })
  await shop.app.svc.publish('cart', 'bob', { for: 'Shop' })
  other.app.svc.emit('news', { for: 'Shop*' })
  t.same((await onOther.frameCount(1)).map((frame) => frame.data), [{ for: 'Shop*' }])
  await pause(50)
  t.equal(onOther.frames.length, 1)
  t.same(stateOnOther.frames.map((frame) => frame.data), [{ version: 0, state: null }])
  onOther.close()
  stateOnOther.close()
})

t.test('a state key that Redis cannot read answers 503; a publish to it rejects', async (t) => {
  const a = await instance(t)
  const client = new Redis(redis.url)
  t.teardown(() => client.quit())
  await client.set('svc:Shop/channel/cart/mallory', 'not a hash')
  const watcher = await subscribe(a.origin, '/svc/channels/cart/mallory', bearer('alice-token'))
  t.equal(watcher.status, 403, 'auth still comes first')
  watcher.close()
  const open = await instance(t, { auth: undefined })
  const broken = await subscribe(open.origin, '/svc/channels/cart/mallory')
  t.equal(broken.status, 503)
  await broken.end()
  t.match(broken.json(), { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /the state of channel "cart" cannot be read: WRONGTYPE/ })
  await t.rejects(open.app.svc.publish('cart', 'mallory', {}), /WRONGTYPE/)
})

t.test('ready() fails with a coded error when Redis cannot be reached; the password is not shown', async (t) => {
  const port = await freePort()
  for (const url of [`redis://:s3cret@127.0.0.1:${port}`, `redis://127.0.0.1:${port}/2`]) {
    const app = Fastify()
    await app.register(svcManifest, { ...requiredOptions, events: { news: { description: 'News' } }, realtime: { redis: url } })
    const error = await app.ready().then(() => undefined, (error: Error) => error)
    t.match(error, { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /cannot connect to realtime.redis \(redis:\/\/(:\*\*\*@)?127.0.0.1:\d+\/?2?\): .*ECONNREFUSED/ })
    t.notMatch(String(error?.message), 's3cret')
    await app.close()
  }
})

// Last: it stops the shared Redis.
t.test('Redis stops mid-stream: commands and the manifest go on, the failure is logged once, delivery resumes when it is back', async (t) => {
  const a = await instance(t)
  const subscriber = await subscribe(a.origin, '/svc/events', bearer('alice-token'))
  a.app.svc.emit('news', { n: 1 })
  await subscriber.frameCount(1)

  await redis.stop()
  await pause(300)
  const failures = () => a.logs.filter((line) => line.level === 50 && /realtime broker \(Redis\) failed/.test(String(line.msg)))
  t.equal(failures().length, 1, 'the broker error is logged, once')

  t.same((await a.app.inject({ method: 'GET', url: '/ping' })).json(), { pong: true }, 'commands are served')
  const manifest = await fetch(`${a.origin}/.well-known/svc.json`)
  t.equal(manifest.status, 200, 'the manifest is served')
  t.doesNotThrow(() => a.app.svc.emit('news', { n: 2 }), 'emit does not throw')
  await pause(50)
  t.ok(a.logs.some((line) => line.level === 50 && /could not be handed to the realtime broker/.test(String(line.msg))), 'the lost emit is logged')
  await t.rejects(a.app.svc.publish('cart', 'alice', {}), 'publish rejects: the state was not stored')
  const watcher = await subscribe(a.origin, '/svc/channels/cart/alice', bearer('alice-token'))
  t.equal(watcher.status, 503)
  await watcher.end()
  t.match(watcher.json(), { code: 'FST_SVC_BROKER_UNAVAILABLE' })
  t.equal(subscriber.ended, false, 'open streams stay open')

  await redis.restart()
  await t.resolves(until(() => a.logs.some((line) => /realtime broker \(Redis\) is back/.test(String(line.msg))), 5000))
  await pause(200)
  a.app.svc.emit('news', { n: 3 })
  t.same((await subscriber.frameCount(2))[1].data, { n: 3 }, 'the same stream receives again')
  subscriber.close()
})

// After the outage test: stops Redis for good.
t.test('app.close() does not wait for a Redis that is gone', async (t) => {
  const a = await instance(t)
  await redis.stop()
  await pause(100)
  const started = Date.now()
  await a.app.close()
  t.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`)
})

async function until (condition: () => boolean, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await pause(20)
  }
}
