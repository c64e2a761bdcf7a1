import { request as httpRequest } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { pause, subscribe } from '../helpers/sse.js'
import { listening } from '../helpers/net.js'
import { bearer, tokenAuth } from '../helpers/auth.js'

class HttpError extends Error {
  constructor (message: string, readonly statusCode: number) {
    super(message)
  }
}

const channels: SvcManifestOptions['channels'] = {
  cart: { description: 'Real-time cart state' },
  board: {
    description: 'Sync rule: admins, or the public key',
    authorize: (credential, key) => credential.sub === 'admin' || key === 'public'
  },
  room: {
    description: 'Async rule',
    authorize: async (_credential, key) => {
      await pause(5)
      return key.startsWith('open-')
    }
  },
  vague: { description: 'Returns a truthy value that is not true', authorize: () => 'yes' as unknown as boolean },
  broken: { description: 'Its rule throws', authorize: () => { throw new Error('the rule store is down') } },
  hidden: { description: 'Its rule throws a 404', authorize: () => { throw new HttpError('No such room', 404) } }
}

async function start (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<{ app: FastifyInstance, origin: string }> {
  const app = Fastify()
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    auth: tokenAuth,
    channels,
    ...options
  })
  const origin = await listening(t, app)
  return { app, origin }
}

t.test('the first frame is the latest state (version 0, null before any publish), then one frame per publish', async (t) => {
  const { app, origin } = await start(t)
  const alice = await subscribe(origin, '/svc/channels/cart/alice', bearer('alice-token'))
  t.equal(alice.status, 200)
  t.equal(alice.headers['content-type'], 'text/event-stream')
  t.equal(alice.headers['cache-control'], 'no-store')
  t.same(await alice.frameCount(1), [{ id: '0', event: 'state', data: { version: 0, state: null } }])
  t.equal(await app.svc.publish('cart', 'alice', { items: ['mug'] }), 1)
  t.equal(await app.svc.publish('cart', 'alice', { items: ['mug', 'kettle'] }), 2)
  t.same((await alice.frameCount(3)).slice(1), [
    { id: '1', event: 'state', data: { version: 1, state: { items: ['mug'] } } },
    { id: '2', event: 'state', data: { version: 2, state: { items: ['mug', 'kettle'] } } }
  ])

  const late = await subscribe(origin, '/svc/channels/cart/alice', bearer('alice-token'))
  t.same(await late.frameCount(1), [{ id: '2', event: 'state', data: { version: 2, state: { items: ['mug', 'kettle'] } } }], 'a late watcher starts at the latest state')
  alice.close()
  late.close()
})

t.test('a watcher receives only the states of its own key', async (t) => {
  const { app, origin } = await start(t, { auth: undefined })
  const keys = ['a/b', 'a%2Fb', 'a+b', 'a#b', 'a b', 'a*', 'ä']
  const watchers = await Promise.all(keys.map((key) => subscribe(origin, `/svc/channels/cart/${encodeURIComponent(key)}`)))
  for (const watcher of watchers) await watcher.frameCount(1)
  for (const [index, key] of keys.entries()) t.equal(await app.svc.publish('cart', key, { key, index }), 1, `${key} has its own version`)
  for (const [index, watcher] of watchers.entries()) {
    t.same((await watcher.frameCount(2))[1].data, { version: 1, state: { key: keys[index], index } })
  }
  await pause(50)
  for (const watcher of watchers) {
    t.equal(watcher.frames.length, 2, 'nothing of another key')
    watcher.close()
  }
})

t.test('default rule with auth: only the subscriber whose subject is the key', async (t) => {
  const { origin } = await start(t)
  const own = await subscribe(origin, '/svc/channels/cart/alice', bearer('alice-token'))
  t.equal(own.status, 200)
  own.close()
  for (const [token, key] of [['alice-token', 'bob'], ['robot-token', 'robot'], ['robot-token', 'undefined']]) {
    const other = await subscribe(origin, `/svc/channels/cart/${key}`, bearer(token))
    t.equal(other.status, 403, `${token} on ${key}`)
    await other.end()
    t.match(other.json(), { statusCode: 403, code: 'FST_SVC_FORBIDDEN', message: `Not allowed to watch channel "cart" key "${key}".` })
  }
  const anonymous = await subscribe(origin, '/svc/channels/cart/alice')
  t.equal(anonymous.status, 401)
  t.equal(anonymous.headers['www-authenticate'], 'Bearer realm="Shop"')
  anonymous.close()
  const refused = await subscribe(origin, '/svc/channels/cart/alice', bearer('forged'))
  t.equal(refused.status, 401)
  refused.close()
})

t.test('without auth everyone may watch every key', async (t) => {
  const { origin } = await start(t, { auth: undefined, channels: { cart: { description: 'Cart' } } })
  const anyone = await subscribe(origin, '/svc/channels/cart/alice')
  t.equal(anyone.status, 200)
  anyone.close()
})

t.test('authorize: true lets in, anything else is 403, a throw is the app\'s error', async (t) => {
  const { origin } = await start(t)
  const cases: Array<[string, string, number]> = [
    ['/svc/channels/board/public', 'bob-token', 200],
    ['/svc/channels/board/plans', 'admin-token', 200],
    ['/svc/channels/board/plans', 'bob-token', 403],
    ['/svc/channels/board/admin', 'robot-token', 403],
    ['/svc/channels/room/open-lobby', 'bob-token', 200],
    ['/svc/channels/room/bob', 'bob-token', 403],
    ['/svc/channels/vague/bob', 'bob-token', 403],
    ['/svc/channels/broken/bob', 'bob-token', 500],
    ['/svc/channels/hidden/bob', 'bob-token', 404]
  ]
  for (const [path, token, status] of cases) {
    const watcher = await subscribe(origin, path, bearer(token))
    t.equal(watcher.status, status, `${path} with ${token}`)
    if (status === 200) {
      t.same((await watcher.frameCount(1))[0].data, { version: 0, state: null })
      watcher.close()
    } else {
      await watcher.end()
    }
  }
  const hidden = await subscribe(origin, '/svc/channels/hidden/x', bearer('bob-token'))
  await hidden.end()
  t.match(hidden.json(), { statusCode: 404, message: 'No such room' })
})

t.test('unknown channel or empty key: 404', async (t) => {
  const { origin } = await start(t)
  const unknown = await subscribe(origin, '/svc/channels/wishlist/alice', bearer('alice-token'))
  t.equal(unknown.status, 404)
  await unknown.end()
  t.match(unknown.json(), { statusCode: 404, code: 'FST_SVC_CHANNEL_NOT_FOUND', message: 'No channel "wishlist" with key "alice".' })
  const empty = await subscribe(origin, '/svc/channels/cart/', bearer('alice-token'))
  t.equal(empty.status, 404)
  empty.close()
})

t.test('layout 1.0 has no channel route', async (t) => {
  const app = await readyApp(t)
  const response = await app.inject({ method: 'GET', url: '/svc/channels/cart/alice' })
  t.equal(response.statusCode, 404)
  t.match(response.json(), { message: 'Route GET:/svc/channels/cart/alice not found' })
  t.throws(() => app.svc.publish('cart', 'alice', {}), { code: 'FST_SVC_UNKNOWN_CHANNEL', message: 'Unknown channel: app.svc.publish("cart"): no such channel is declared (declared: none).' })
})

t.test('publish refuses what it cannot deliver, before ready, after close', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0', channels: { cart: { description: 'Cart' } } })
  t.throws(() => app.svc.publish('cart', 'alice', {}), { code: 'FST_SVC_NOT_READY', message: /app.svc.publish\(\) is available after/ })
  await app.ready()
  t.throws(() => app.svc.publish('wishlist', 'alice', {}), { code: 'FST_SVC_UNKNOWN_CHANNEL', message: /\(declared: "cart"\)/ })
  t.throws(() => app.svc.publish('cart', '', {}), { code: 'FST_SVC_INVALID_PUBLISH', message: 'Invalid publish: app.svc.publish("cart", key): the key must be a non-empty string of well-formed Unicode; got a string that is not.' })
  t.throws(() => app.svc.publish('cart', '\ud800', {}), { code: 'FST_SVC_INVALID_PUBLISH' })
  t.throws(() => app.svc.publish('cart', 42 as unknown as string, {}), { code: 'FST_SVC_INVALID_PUBLISH', message: /got number/ })
  t.throws(() => app.svc.publish('cart', 'alice', { total: 1n }), { code: 'FST_SVC_INVALID_PUBLISH', message: /channel "cart": the state is not JSON/ })
  t.equal(await app.svc.publish('cart', 'alice', undefined), 1, 'undefined is stored as null')
  await app.close()
  t.throws(() => app.svc.publish('cart', 'alice', {}), { code: 'FST_SVC_CLOSED' })
})

t.test('authorize must be a function', async (t) => {
  const app = Fastify()
  await t.rejects(async () => app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    channels: { cart: { description: 'Cart', authorize: true as unknown as () => boolean } }
  }), { code: 'FST_SVC_INVALID_OPTION', message: /channel "cart": "authorize" must be a function/ })
})

t.test('watchers come and go: the last one out unsubscribes, a new one subscribes again', async (t) => {
  const { app, origin } = await start(t, { auth: undefined })
  const first = await subscribe(origin, '/svc/channels/cart/k')
  const second = await subscribe(origin, '/svc/channels/cart/k')
  await first.frameCount(1)
  await second.frameCount(1)
  first.close()
  await pause(20)
  await app.svc.publish('cart', 'k', 'one')
  t.same((await second.frameCount(2))[1].data, { version: 1, state: 'one' })
  second.close()
  await pause(20)
  // Out and straight back in: the new subscription must not be removed along with the old one.
  const again = await subscribe(origin, '/svc/channels/cart/k')
  await again.frameCount(1)
  again.close()
  const last = await subscribe(origin, '/svc/channels/cart/k')
  t.same((await last.frameCount(1))[0].data, { version: 1, state: 'one' })
  await pause(20)
  await app.svc.publish('cart', 'k', 'two')
  t.same((await last.frameCount(2))[1].data, { version: 2, state: 'two' })
  last.close()
})

t.test('states published while a watcher is being set up are not lost, and versions only grow', async (t) => {
  const { app, origin } = await start(t, { auth: undefined })
  let publishing = true
  let published = 0
  // Two publishes in every turn of the event loop, racing with the watchers' set-up.
  const loop = () => {
    if (!publishing) return
    for (let i = 0; i < 2; i++) app.svc.publish('cart', 'race', ++published).catch(t.error)
    setImmediate(loop)
  }
  loop()
  const watchers = await Promise.all(Array.from({ length: 10 }, () => subscribe(origin, '/svc/channels/cart/race')))
  for (const watcher of watchers) await watcher.frameCount(2)
  publishing = false
  await pause(20)
  const last = published
  for (const watcher of watchers) {
    await watcher.until(() => (watcher.frames.at(-1)?.data as { version: number }).version === last, 3000, `version ${last}`)
    const versions = watcher.frames.map((frame) => (frame.data as { version: number }).version)
    t.ok(versions.every((version, index) => index === 0 || version > versions[index - 1]), 'strictly increasing')
    t.same(watcher.frames.at(-1)?.data, { version: last, state: last }, 'ends at the last state')
    watcher.close()
  }
})

t.test('a watcher that leaves while it is being authorized gets no stream', async (t) => {
  let entered: () => void = () => {}
  const authorizing = new Promise<void>((resolve) => { entered = resolve })
  let answered: () => void = () => {}
  const done = new Promise<void>((resolve) => { answered = resolve })
  const { app, origin } = await start(t, {
    auth: undefined,
    channels: {
      cart: {
        description: 'Cart',
        async authorize (_credential, key, request) {
          if (key !== 'leaver') return true
          entered()
          await new Promise((resolve) => request.raw.socket.once('close', resolve))
          setTimeout(answered, 20)
          return true
        }
      }
    }
  })
  const leaving = httpRequest(`${origin}/svc/channels/cart/leaver`, { agent: false })
  leaving.on('error', () => {})
  leaving.end()
  await authorizing
  leaving.destroy()
  await done
  const watcher = await subscribe(origin, '/svc/channels/cart/alice')
  t.same((await watcher.frameCount(1))[0].data, { version: 0, state: null })
  await app.svc.publish('cart', 'alice', 'after')
  t.same((await watcher.frameCount(2))[1].data, { version: 1, state: 'after' })
  watcher.close()
})
