import mqemitter from 'mqemitter'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcBroker, type SvcBrokerMessage, type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { pause, subscribe } from '../helpers/sse.js'

type Listener = (message: SvcBrokerMessage, done: () => void) => void

/**
 * What a user passes as `realtime.broker`: one mqemitter and one Map standing for infrastructure the
 * instances share (the way an app wraps mqemitter-mongodb, or a Redis cluster of its own). Each app gets its
 * own view, which records what that app subscribed, so a test can see what the app leaves behind.
 */
class SharedBroker {
  readonly emitter = mqemitter()
  readonly states = new Map<string, { version: number, json: string }>()
  storeDelay: Promise<void> | undefined
  subscribeDelay: Promise<void> | undefined
  readError: Error | undefined
  readonly keysRead = new Set<string>()
  readonly reconnectListeners: Array<() => void> = []

  viewFor (): SvcBroker & { listening: Set<string> } {
    const shared = this
    const listening = new Set<string>()
    const key = (topic: string, listener: Listener): string => `${topic} ${registered.indexOf(listener)}`
    const registered: Listener[] = []
    return {
      listening,
      send: (message) => new Promise<void>((resolve) => { shared.emitter.emit(message, () => resolve()) }),
      subscribe: async (topic, listener) => {
        await shared.subscribeDelay
        await new Promise<void>((resolve) => {
          registered.push(listener)
          listening.add(key(topic, listener))
          shared.emitter.on(topic, listener as never, resolve)
        })
      },
      unsubscribe: (topic, listener) => {
        listening.delete(key(topic, listener))
        shared.emitter.removeListener(topic, listener as never)
      },
      store: async (stateKey, json) => {
        await shared.storeDelay
        const version = (shared.states.get(stateKey)?.version ?? 0) + 1
        shared.states.set(stateKey, { version, json })
        return { version, epoch: 'shared-1' }
      },
      read: async (stateKey) => {
        await shared.storeDelay
        if (shared.readError !== undefined) throw shared.readError
        shared.keysRead.add(stateKey)
        const state = shared.states.get(stateKey)
        return state === undefined ? { version: 0, epoch: 'shared-1', json: 'null' } : { ...state, epoch: 'shared-1' }
      },
      onReconnect: (listener) => { shared.reconnectListeners.push(listener) }
    }
  }
}

const realtimeDeclarations: Partial<SvcManifestOptions> = {
  svc: '0.5.0',
  events: { 'order.placed': { description: 'An order was placed' } },
  channels: { cart: { description: 'A cart' } }
}

async function instance (t: Test, broker: SvcBroker, realtime: Partial<NonNullable<SvcManifestOptions['realtime']>> = {}): Promise<{ app: FastifyInstance, origin: string }> {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...realtimeDeclarations, realtime: { broker, ...realtime } })
  const origin = await listening(t, app)
  return { app, origin }
}

t.test('two instances on one broker of the user\'s: an emit or a publish on one reaches the streams of the other', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  const a = await instance(t, shared.viewFor())
  const b = await instance(t, shared.viewFor())
  const events = await subscribe(b.origin, '/svc/events')
  const cart = await subscribe(b.origin, '/svc/channels/cart/alice')
  await cart.frameCount(1)

  a.app.svc.emit('order.placed', { id: 7 })
  t.same((await events.frameCount(1))[0], { id: '1', event: 'order.placed', data: { id: 7 } })
  t.equal(await a.app.svc.publish('cart', 'alice', { items: ['tea'] }), 1)
  t.same((await cart.frameCount(2))[1].data, { version: 1, state: { items: ['tea'] } }, 'the version comes from the shared store')
  t.equal(shared.states.size, 1, 'the state lives in the shared store')
})

t.test('closing one instance leaves the broker open and the others working, and takes back what it subscribed', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  const viewA = shared.viewFor()
  const a = await instance(t, viewA)
  const b = await instance(t, shared.viewFor())
  const watcher = await subscribe(a.origin, '/svc/channels/cart/bob')
  await watcher.frameCount(1)
  t.ok(viewA.listening.size >= 2, 'the app subscribed to its events and to the watched key')

  await a.app.close()
  t.same([...viewA.listening], [], 'every subscription of the closed app is gone')
  t.equal((shared.emitter as unknown as { closed: boolean }).closed, false, 'the broker is the user\'s: never closed by the plugin')

  const events = await subscribe(b.origin, '/svc/events')
  b.app.svc.emit('order.placed', { id: 8 })
  t.same((await events.frameCount(1))[0].data, { id: 8 })
})

t.test('a broker that does not answer: publish rejects and a new channel stream answers 503 within commandTimeout', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  const view = shared.viewFor()
  const { app, origin } = await instance(t, view, { commandTimeout: 200 })
  let answer = (): void => {}
  shared.storeDelay = new Promise((resolve) => { answer = resolve })
  t.teardown(() => { answer() })

  const started = Date.now()
  await t.rejects(app.svc.publish('cart', 'carol', { items: [] }), { code: 'FST_SVC_BROKER_UNAVAILABLE', message: 'Realtime broker unavailable: app.svc.publish("cart"): storing a state: realtime.broker did not answer within 200 ms (realtime.commandTimeout)' })
  const stream = await subscribe(origin, '/svc/channels/cart/carol')
  t.equal(stream.status, 503)
  t.match(JSON.parse(stream.body), { code: 'FST_SVC_BROKER_UNAVAILABLE' })
  t.ok(Date.now() - started < 2000, 'each waited about commandTimeout, not for the broker')

  answer()
  shared.storeDelay = undefined

  // A subscription the broker completes only after its caller was told it failed is taken back then.
  let subscribed = (): void => {}
  shared.subscribeDelay = new Promise((resolve) => { subscribed = resolve })
  t.teardown(() => { subscribed() })
  const late = await subscribe(origin, '/svc/channels/cart/frank')
  t.equal(late.status, 503)
  t.equal(view.listening.size, 1, 'only the events subscription is in place')
  shared.subscribeDelay = undefined
  subscribed()
  await pause(20)
  t.equal(view.listening.size, 1, 'the late one was taken back as it completed')
  await pause(10)
  t.equal(await app.svc.publish('cart', 'carol', { items: ['jam'] }), 2, 'the broker answers again: the late store counted too')
})

t.test('a broker that fails says so, coded; one back after an outage sends watchers what they missed', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  const { app, origin } = await instance(t, shared.viewFor())
  const watcher = await subscribe(origin, '/svc/channels/cart/dave')
  await watcher.frameCount(1)

  shared.readError = new Error('the store is down')
  const refused = await subscribe(origin, '/svc/channels/cart/erin')
  t.equal(refused.status, 503)
  t.match(JSON.parse(refused.body), { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /reading a state: the store is down/ })
  shared.readError = undefined

  // A publish the bus lost while it was down: only the store has it.
  t.equal(shared.keysRead.size, 1, 'the watcher\'s key was read')
  shared.states.set([...shared.keysRead][0], { version: 1, json: '{"items":["lost"]}' })
  t.equal(shared.reconnectListeners.length, 1, 'the channel hub asked to hear of reconnections')
  for (const listener of shared.reconnectListeners) listener()
  t.same((await watcher.frameCount(2))[1].data, { version: 1, state: { items: ['lost'] } })
  await app.close()
  const reads = shared.keysRead.size
  shared.keysRead.clear()
  for (const listener of shared.reconnectListeners) listener()
  await pause(20)
  t.equal(shared.keysRead.size, 0, `a closed app reads nothing when the broker comes back (it had read ${reads} key)`)
})

t.test('a broker that does not take the app\'s subscription as it starts: ready() rejects, coded, within commandTimeout', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  let subscribed = (): void => {}
  shared.subscribeDelay = new Promise((resolve) => { subscribed = resolve })
  t.teardown(() => { subscribed() })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(svcManifest, { ...requiredOptions, ...realtimeDeclarations, realtime: { broker: shared.viewFor(), commandTimeout: 200 } })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /subscribing to \S+: realtime\.broker did not answer within 200 ms/ })
})

t.test('an app that declares nothing realtime keeps its events stream in process and never calls the broker', async (t) => {
  const shared = new SharedBroker()
  t.teardown(() => { shared.emitter.close(() => {}) })
  const view = shared.viewFor()
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, realtime: { broker: view } })
  const origin = await listening(t, app)
  const events = await subscribe(origin, '/svc/events')
  t.equal(events.status, 200)
  t.equal(view.listening.size, 0)
})

t.test('realtime.broker is checked at register(): its methods, and not beside realtime.redis', async (t) => {
  const view = new SharedBroker().viewFor()
  const register = async (realtime: unknown): Promise<void> => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(svcManifest, { ...requiredOptions, realtime } as SvcManifestOptions)
  }
  await t.rejects(register({ broker: 'redis://x' }), { code: 'FST_SVC_INVALID_OPTION', message: /"realtime\.broker" must be an object with the methods send, subscribe, unsubscribe, store, read/ })
  await t.rejects(register({ broker: null }), { code: 'FST_SVC_INVALID_OPTION', message: /"realtime\.broker" must be/ })
  await t.rejects(register({ broker: { ...view, read: undefined } }), { code: 'FST_SVC_INVALID_OPTION', message: /"realtime\.broker\.read" must be a function; got nothing/ })
  await t.rejects(register({ broker: view, redis: 'redis://127.0.0.1:6379' }), { code: 'FST_SVC_INVALID_OPTION', message: /"realtime\.redis" must be absent beside realtime\.broker/ })
})
