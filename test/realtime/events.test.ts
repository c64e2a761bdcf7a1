import { Type } from '@sinclair/typebox'
import { request as httpRequest } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { subscribe } from '../helpers/sse.js'
import { listening } from '../helpers/net.js'
import { bearer, tokenAuth } from '../helpers/auth.js'

const events: SvcManifestOptions['events'] = {
  'cart.updated': { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) },
  news: { description: 'Something happened' }
}

/** A listening app with bearer auth and two events; closed at the end of the test. */
async function start (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<{ app: FastifyInstance, origin: string }> {
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    auth: tokenAuth,
    events,
    ...options
  })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => ({ pong: true }))
  const origin = await listening(t, app)
  return { app, origin }
}

t.test('a subscriber gets an SSE stream: headers, frames with increasing ids, event name, JSON data', async (t) => {
  const { app, origin } = await start(t)
  const alice = await subscribe(origin, '/svc/events', bearer('alice-token'))
  t.equal(alice.status, 200)
  t.equal(alice.headers['content-type'], 'text/event-stream')
  t.equal(alice.headers['cache-control'], 'no-store')
  app.svc.emit('cart.updated', { items: ['mug'] })
  app.svc.emit('news')
  app.svc.emit('cart.updated', { items: ['mug', 'kettle'] })
  t.same(await alice.frameCount(3), [
    { id: '1', event: 'cart.updated', data: { items: ['mug'] } },
    { id: '2', event: 'news', data: null },
    { id: '3', event: 'cart.updated', data: { items: ['mug', 'kettle'] } }
  ])
  alice.close()
})

t.test('broadcast reaches every subscriber; an event with `to` reaches only that subject', async (t) => {
  const { app, origin } = await start(t)
  const alice = await subscribe(origin, '/svc/events', bearer('alice-token'))
  const aliceAgain = await subscribe(origin, '/svc/events', bearer('alice-token'))
  const bob = await subscribe(origin, '/svc/events', bearer('bob-token'))
  const robot = await subscribe(origin, '/svc/events', bearer('robot-token'))

  app.svc.emit('cart.updated', { items: ['for alice'] }, { to: 'alice' })
  app.svc.emit('news', { headline: 'for everyone' })
  for (const subscriber of [alice, aliceAgain]) {
    t.same((await subscriber.frameCount(2)).map((frame) => frame.data), [{ items: ['for alice'] }, { headline: 'for everyone' }])
  }
  // The broadcast was sent after the targeted event: once it arrived, the targeted one would have too.
  for (const subscriber of [bob, robot]) {
    t.same((await subscriber.frameCount(1)).map((frame) => frame.data), [{ headline: 'for everyone' }], 'nothing addressed to alice')
    t.equal(subscriber.frames[0].id, '1', 'ids count only what this stream received')
  }

  app.svc.emit('cart.updated', { items: ['for bob'] }, { to: 'bob' })
  app.svc.emit('cart.updated', { items: ['for nobody here'] }, { to: 'carol' })
  app.svc.emit('news', { headline: 'second' })
  await bob.frameCount(3)
  t.same(bob.frames.map((frame) => frame.data), [{ headline: 'for everyone' }, { items: ['for bob'] }, { headline: 'second' }])
  await alice.frameCount(3)
  t.same(alice.frames[2].data, { headline: 'second' }, 'alice never sees bob\'s or carol\'s events')
  t.same(robot.frames.map((frame) => frame.data), [{ headline: 'for everyone' }, { headline: 'second' }].slice(0, robot.frames.length))
  await robot.frameCount(2)
  t.same(robot.frames[1].data, { headline: 'second' }, 'a credential without a subject gets broadcasts only')
  for (const subscriber of [alice, aliceAgain, bob, robot]) subscriber.close()
})

t.test('?events= picks events; an undeclared name is 400; none or empty means all', async (t) => {
  const { app, origin } = await start(t)
  const newsOnly = await subscribe(origin, '/svc/events?events=news', bearer('alice-token'))
  const both = await subscribe(origin, '/svc/events?events=news,%20cart.updated', bearer('alice-token'))
  const repeated = await subscribe(origin, '/svc/events?events=news&events=cart.updated', bearer('alice-token'))
  const empty = await subscribe(origin, '/svc/events?events=', bearer('alice-token'))
  app.svc.emit('cart.updated', { items: [] }, { to: 'alice' })
  app.svc.emit('cart.updated', { items: [] })
  app.svc.emit('news')
  t.same((await newsOnly.frameCount(1)).map((frame) => frame.event), ['news'])
  for (const subscriber of [both, repeated, empty]) {
    t.same((await subscriber.frameCount(3)).map((frame) => frame.event), ['cart.updated', 'cart.updated', 'news'])
  }

  const unknown = await subscribe(origin, '/svc/events?events=news,cart.deleted', bearer('alice-token'))
  t.equal(unknown.status, 400)
  await unknown.end()
  t.match(unknown.json(), {
    statusCode: 400,
    code: 'FST_SVC_INVALID_SUBSCRIPTION',
    message: 'Unknown event "cart.deleted" in ?events. Declared events: cart.updated, news.'
  })
  for (const subscriber of [newsOnly, both, repeated, empty]) subscriber.close()
})

t.test('with auth, subscribing needs a valid bearer token, exactly like a command with auth: required', async (t) => {
  const { origin } = await start(t)
  const anonymous = await subscribe(origin, '/svc/events')
  t.equal(anonymous.status, 401)
  t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"')
  await anonymous.end()
  t.match(anonymous.json(), { statusCode: 401, code: 'FST_SVC_UNAUTHORIZED' })

  const refused = await subscribe(origin, '/svc/events', bearer('stolen-token'))
  t.equal(refused.status, 401)
  t.equal(refused.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"')
  await refused.end()

  // The query is not read before the credential: an anonymous caller learns nothing about event names.
  const probing = await subscribe(origin, '/svc/events?events=secret.thing')
  t.equal(probing.status, 401)
  probing.close()
})

t.test('auth.subject names the subject when the credential has no `sub`', async (t) => {
  const { app, origin } = await start(t, {
    auth: {
      type: 'bearer',
      description: 'Tokens carrying a user id',
      verify: (token) => (token === 'u42' ? { user: { id: 'user-42' } } : undefined),
      subject: (credential) => credential.user.id
    }
  })
  const user = await subscribe(origin, '/svc/events', bearer('u42'))
  app.svc.emit('news', { for: 'user-42' }, { to: 'user-42' })
  t.same((await user.frameCount(1))[0].data, { for: 'user-42' })
  user.close()
})

t.test('without auth the stream is open to anyone, and `to` is refused', async (t) => {
  const { app, origin } = await start(t, { auth: undefined })
  const anyone = await subscribe(origin, '/svc/events')
  t.equal(anyone.status, 200)
  t.throws(() => app.svc.emit('news', {}, { to: 'alice' }), { code: 'FST_SVC_AUTH_NOT_CONFIGURED', message: /"to" addresses a subject/ })
  app.svc.emit('news', { n: 1 })
  t.same((await anyone.frameCount(1)).map((frame) => frame.data), [{ n: 1 }], 'the refused emit delivered nothing')
  anyone.close()
})

t.test('emit refuses undeclared events and bad payloads, and then delivers nothing', async (t) => {
  const { app, origin } = await start(t)
  const alice = await subscribe(origin, '/svc/events', bearer('alice-token'))
  t.throws(() => app.svc.emit('cart.deleted', {}), {
    code: 'FST_SVC_UNKNOWN_EVENT',
    message: 'Unknown event: app.svc.emit("cart.deleted"): no such event is declared (declared: "cart.updated", "news"). Declare it in the "events" option or with app.svc.event().'
  })
  t.throws(() => app.svc.emit('cart.updated', { items: 'mug' }), {
    code: 'FST_SVC_INVALID_EVENT_DATA',
    message: 'Invalid event data: event "cart.updated": data/items must be array. Nothing was delivered.'
  })
  t.throws(() => app.svc.emit('cart.updated', undefined), { code: 'FST_SVC_INVALID_EVENT_DATA', message: /data must be object/ })
  t.throws(() => app.svc.emit('news', { id: 1n }), { code: 'FST_SVC_INVALID_EVENT_DATA', message: /the payload is not JSON \(Do not know how to serialize a BigInt\)/ })
  t.throws(() => app.svc.emit('news', () => {}), { code: 'FST_SVC_INVALID_EVENT_DATA', message: /a function has no JSON form/ })
  t.throws(() => app.svc.emit('news', {}, { to: '' }), { code: 'FST_SVC_INVALID_OPTION', message: /"to" must be a subject, a non-empty string; got ""/ })
  t.throws(() => app.svc.emit('news', {}, { to: 7 as unknown as string }), { code: 'FST_SVC_INVALID_OPTION', message: /got 7/ })
  t.throws(() => app.svc.emit('news', {}, { to: (() => 'alice') as unknown as string }), { code: 'FST_SVC_INVALID_OPTION', message: /got function/ })

  const items = ['mug']
  const payload = { items, extra: 'kept' }
  app.svc.emit('cart.updated', payload)
  t.same((await alice.frameCount(1)), [{ id: '1', event: 'cart.updated', data: { items: ['mug'], extra: 'kept' } }], 'only the valid emit arrived')
  t.same(payload, { items: ['mug'], extra: 'kept' }, 'the payload is checked, not changed')
  alice.close()
})

t.test('emit and publish before ready() and after close() throw coded errors', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, events })
  t.throws(() => app.svc.emit('news'), { code: 'FST_SVC_NOT_READY', message: 'The manifest is not built yet: app.svc.emit() is available after `await app.ready()`.' })
  await app.ready()
  app.svc.emit('news')
  await app.close()
  t.throws(() => app.svc.emit('news'), { code: 'FST_SVC_CLOSED', message: 'The app is closing: app.svc.emit() was called after app.close().' })
})

t.test('Last-Event-ID: a reconnecting subscriber\'s ids go on from the one it last saw', async (t) => {
  const { app, origin } = await start(t)
  const resumed = await subscribe(origin, '/svc/events', { ...bearer('alice-token'), 'last-event-id': '41' })
  const garbage = await subscribe(origin, '/svc/events', { ...bearer('alice-token'), 'last-event-id': 'x41' })
  const fresh = await subscribe(origin, '/svc/events', bearer('alice-token'))
  app.svc.emit('news', { headline: 'one' })
  app.svc.emit('news', { headline: 'two' })
  // One emit reaches streams at different ids: each frame carries the stream's own id and the same data.
  const ids = async (stream: typeof fresh): Promise<string[]> => (await stream.frameCount(2)).map((frame) => `${frame.id} ${JSON.stringify(frame.data)}`)
  t.same(await ids(resumed), ['42 {"headline":"one"}', '43 {"headline":"two"}'])
  t.same(await ids(garbage), ['1 {"headline":"one"}', '2 {"headline":"two"}'])
  t.same(await ids(fresh), ['1 {"headline":"one"}', '2 {"headline":"two"}'])
  resumed.close()
  garbage.close()
  fresh.close()
})

t.test('a heartbeat comment goes out every realtime.heartbeat seconds', async (t) => {
  const { origin } = await start(t, { realtime: { heartbeat: 0.05 } })
  const alice = await subscribe(origin, '/svc/events', bearer('alice-token'))
  await alice.until(() => alice.comments >= 3, 2000, 'three heartbeats')
  t.equal(alice.frames.length, 0, 'comments are not events')
  alice.close()
})

t.test('the manifest names the events endpoint in a Link header, under basePath', async (t) => {
  const { app, origin } = await start(t, { basePath: '/realtime/v1' })
  const manifest = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  const link = '</realtime/v1/execute>; rel="svc-execute", </realtime/v1/pipeline>; rel="svc-pipeline", </realtime/v1/events>; rel="svc-events"'
  t.equal(manifest.headers.link, link)
  const notModified = await app.inject({ method: 'GET', url: '/.well-known/svc.json', headers: { 'if-none-match': manifest.headers.etag as string } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.link, link)
  const moved = await subscribe(origin, '/realtime/v1/events', bearer('alice-token'))
  t.equal(moved.status, 200)
  moved.close()
  t.equal((await app.inject({ method: 'GET', url: '/svc/events', headers: bearer('alice-token') })).statusCode, 404)
  t.equal((await app.inject({ method: 'HEAD', url: '/realtime/v1/events', headers: bearer('alice-token') })).statusCode, 404, 'a stream has no HEAD')
})

t.test('event data may $ref registered types (by name or by their own $id); formats are checked', async (t) => {
  const app = await readyApp(t, {
    types: {
      Product: Type.Object({ sku: Type.String() }, { $id: 'Product' }),
      Price: Type.Object({ amount: Type.Number() }, { $id: 'urn:shop:price' })
    },
    events: {
      'product.added': { description: 'A product was added', data: Type.Object({ product: Type.Ref('Product'), price: Type.Ref('urn:shop:price') }) },
      'user.joined': { description: 'A user joined', data: Type.Object({ email: Type.String({ format: 'email' }) }) }
    }
  })
  app.svc.emit('product.added', { product: { sku: 'mug' }, price: { amount: 8 } })
  t.throws(() => app.svc.emit('product.added', { product: { sku: 1 }, price: { amount: 8 } }), { message: /data\/product\/sku must be string/ })
  t.throws(() => app.svc.emit('product.added', { product: { sku: 'mug' }, price: { amount: 'eight' } }), { message: /data\/price\/amount must be number/ })
  app.svc.emit('user.joined', { email: 'ann@shop.example' })
  t.throws(() => app.svc.emit('user.joined', { email: 'not an address' }), { message: /data\/email must match format "email"/ })
})

t.test('an event data schema that cannot be compiled stops ready() with a coded error', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    events: { odd: { description: 'Odd', data: Type.Object({ code: Type.String({ pattern: '([' }) }) } }
  })
  await t.rejects(async () => app.ready(), { code: 'FST_SVC_INVALID_OPTION', message: /event "odd": its "data" schema cannot be compiled to check payloads/ })

  const refusedId = Fastify()
  await refusedId.register(svcManifest, {
    ...requiredOptions,
    types: { Price: Type.Object({ amount: Type.Number() }, { $id: 'urn:price' }) },
    events: { priced: { description: 'Priced', data: Type.Object({ price: Type.Ref('urn:price') }) } }
  })
  await t.rejects(async () => refusedId.ready(), { code: 'FST_SVC_INVALID_OPTION', message: /event "priced": its "data" schema cannot be compiled/ })
})

t.test('an app without events serves an empty stream and refuses every name', async (t) => {
  const { origin } = await start(t, { events: undefined, auth: undefined })
  const all = await subscribe(origin, '/svc/events')
  t.equal(all.status, 200)
  all.close()
  const named = await subscribe(origin, '/svc/events?events=news')
  t.equal(named.status, 400)
  await named.end()
  t.match(named.json(), { message: 'Unknown event "news" in ?events. Declared events: none.' })
})

t.test('a subscriber that leaves while its token is checked gets no stream, and nothing breaks', async (t) => {
  let entered: () => void = () => {}
  const checking = new Promise<void>((resolve) => { entered = resolve })
  let verified: () => void = () => {}
  const done = new Promise<void>((resolve) => { verified = resolve })
  const { app, origin } = await start(t, {
    auth: {
      type: 'bearer',
      description: 'Slow tokens',
      async verify (token, request) {
        entered()
        await new Promise((resolve) => request.raw.socket.once('close', resolve))
        setTimeout(verified, 20)
        return { sub: token }
      }
    }
  })
  const leaving = httpRequest(`${origin}/svc/events`, { headers: bearer('alice'), agent: false })
  leaving.on('error', () => {})
  leaving.end()
  await checking
  leaving.destroy()
  await done
  app.svc.emit('news', {})
  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 1000, 'close is not held by a stream that never opened')
})
