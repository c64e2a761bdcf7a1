import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { socketsTo, startInstance, startRedis, type RedisServer, type ServiceInstance } from '../helpers/redis.js'
import { pause, subscribe, until, type SseSubscriber } from '../helpers/sse.js'

/**
 * Reliability (issue #28): a real redis-server, stopped (SIGSTOP: the sockets stay up and nothing answers,
 * as in a partition or a stuck primary) or killed (SIGKILL) in the middle of a burst of publishes and
 * emits. Measured on 0.2: a publish waited the whole 15 s pause with nothing logged, a new channel stream
 * waited too, and app.close() had not finished after 30 s. Now `realtime.commandTimeout` bounds each of
 * them. The limits here are small to keep the file fast; the time bounds are generous (2 shared cores).
 */

/** realtime.commandTimeout for these tests, in ms. */
const LIMIT = 250
/** What a bound may take beyond its limit on a loaded machine. */
const SLACK = 1000

const options: Partial<SvcManifestOptions> = {
  svc: '0.5.0',
  events: { news: { description: 'News' } },
  channels: { cart: { description: 'Cart state' } },
  realtime: { commandTimeout: LIMIT }
}

const redis: RedisServer = await startRedis()
t.teardown(() => redis.stop())

interface Settled { n: number, took: number, version?: number, error?: Error & { code?: string } }

/** Publishes `{ n }` to `cart/<key>` every few ms and emits `news { n }` until stopped; every call is kept. */
class Burst {
  readonly publishes: Array<Promise<Settled>> = []
  /** When each `n` was emitted. */
  readonly emitted: number[] = []
  private running = true
  private readonly done: Promise<void>

  constructor (app: FastifyInstance, key: string) {
    this.done = (async () => {
      for (let n = 1; this.running; n++) {
        const started = Date.now()
        this.publishes.push(app.svc.publish('cart', key, { n }).then(
          (version) => ({ n, took: Date.now() - started, version }),
          (error: Error) => ({ n, took: Date.now() - started, error })
        ))
        app.svc.emit('news', { n })
        this.emitted.push(started)
        await pause(5)
      }
    })()
  }

  /** Stops it; resolves to every publish, settled, or fails if one has not settled `limit` ms later. */
  async stop (limit: number): Promise<Settled[]> {
    this.running = false
    await this.done
    return await withinTime(Promise.all(this.publishes), limit, 'a publish of the burst had not settled')
  }
}

async function withinTime<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what} after ${ms} ms`)), ms) })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

const errorsOf = (instance: ServiceInstance, pattern: RegExp) =>
  instance.logs.filter((line) => line.level === 50 && pattern.test(String(line.msg)))

const states = (watcher: SseSubscriber) => watcher.frames.map((frame) => frame.data as { version: number, state: { n: unknown } | null })

/** The `n` of every events frame. */
const delivered = (subscriber: SseSubscriber) => new Set(subscriber.frames.map((frame) => (frame.data as { n: number }).n))

/** How many times versions go back on a stream: only when the store lost its states (a Redis restart). */
function setbacks (versions: number[]): number {
  return versions.filter((version, i) => i > 0 && version <= versions[i - 1]).length
}

/**
 * Two instances sharing Redis; on the one named `watching`, the events stream and a stream of `cart/<key>`;
 * from the other, a burst under way whose first three publishes the stream has shown.
 */
async function burstUnderWay (t: Test, key: string, watching: 'a' | 'b'): Promise<{ a: ServiceInstance, b: ServiceInstance, events: SseSubscriber, watcher: SseSubscriber, burst: Burst }> {
  const a = await startInstance(t, redis.url, options)
  const b = await startInstance(t, redis.url, options)
  const [watched, publishing] = watching === 'a' ? [a, b] : [b, a]
  const events = await subscribe(watched.origin, '/svc/events')
  const watcher = await subscribe(watched.origin, `/svc/channels/cart/${key}`)
  await watcher.frameCount(1)

  const burst = new Burst(publishing.app, key)
  await watcher.frameCount(4)
  return { a, b, events, watcher, burst }
}

/** Opens a channel stream and resolves with it and the time its answer took. */
async function timedSubscribe (origin: string, path: string): Promise<{ stream: SseSubscriber, took: number }> {
  const started = Date.now()
  const stream = await subscribe(origin, path)
  return { stream, took: Date.now() - started }
}

t.test('Redis stops answering during a publish burst: publish rejects, emit logs, a new stream is refused, open streams resume', async (t) => {
  const { a, events, watcher, burst } = await burstUnderWay(t, 'c1', 'b')
  redis.freeze()
  const frozenAt = Date.now()
  // The first stream after the stop, before anything noticed it: its subscribe and its read wait on Redis.
  const first = await timedSubscribe(a.origin, '/svc/channels/cart/c2')
  t.equal(first.stream.status, 503, `a new channel stream is refused (after ${first.took} ms)`)
  await first.stream.end()
  t.match(first.stream.json(), { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /channel "cart" cannot be watched now; retry later: Redis did not answer within 250 ms \(realtime\.commandTimeout\)/ })
  t.ok(first.took < LIMIT + SLACK, `answered within commandTimeout (${first.took} ms)`)
  // Once the broker knows, at once.
  await until(() => errorsOf(a, /realtime broker \(Redis\) failed/).length > 0, 'the outage to be logged', LIMIT + SLACK)
  const next = await timedSubscribe(a.origin, '/svc/channels/cart/c3')
  t.equal(next.stream.status, 503)
  t.ok(next.took < LIMIT, `a stream asked for once the broker is down is refused at once (${next.took} ms)`)
  await next.stream.end()

  let emitTook = 0
  const emitStarted = Date.now()
  t.doesNotThrow(() => a.app.svc.emit('news', { n: 'during' }), 'emit does not throw')
  emitTook = Date.now() - emitStarted
  t.ok(emitTook < 50, `emit returns at once (${emitTook} ms)`)
  await pause(600)
  const settled = await burst.stop(LIMIT + SLACK)
  t.equal(watcher.ended || events.ended, false, 'the open streams stay open while Redis is stopped')

  const afterStop = settled.filter((each) => each.error !== undefined)
  t.ok(afterStop.length > 0, `publishes made while Redis was stopped reject (${afterStop.length} of ${settled.length})`)
  for (const each of afterStop) {
    t.match(each.error, { code: 'FST_SVC_BROKER_UNAVAILABLE', statusCode: 503, message: /^Realtime broker unavailable: app\.svc\.publish\("cart"\): / }, `publish ${each.n}`)
  }
  const slowest = Math.max(...settled.map((each) => each.took))
  t.ok(slowest < LIMIT + SLACK, `no publish waited longer than commandTimeout (slowest: ${slowest} ms)`)
  const timedOut = afterStop.filter((each) => /did not answer within 250 ms \(realtime\.commandTimeout\)/.test(each.error?.message ?? ''))
  t.ok(timedOut.length > 0, 'the publishes Redis took and did not answer name the limit')
  for (const each of timedOut) t.ok(each.took >= LIMIT - 20, `publish ${each.n} rejected after ${each.took} ms, at the limit`)
  t.ok(settled.every((each) => each.error !== undefined || each.n <= settled.length), 'every publish settled')

  // Every emit is delivered or logged: none lost silently. The ones Redis had not taken are logged by name.
  const lostEmits = errorsOf(a, /^fastify-svc-manifest: event "news" could not be handed to the realtime broker; its subscribers may not receive it$/)
  t.ok(lostEmits.length > 0, `emits Redis did not take are logged at error level (${lostEmits.length})`)
  t.ok(lostEmits.every((line) => line.event === 'news'), 'each log line names the event')
  t.ok(Date.now() - frozenAt > LIMIT, 'Redis was stopped longer than the limit')

  const since = a.logs.length
  redis.thaw()
  await until(() => a.logs.slice(since).some((line) => /realtime broker \(Redis\) is back/.test(String(line.msg))), 'the broker to be back')
  const version = await a.app.svc.publish('cart', 'c1', { n: 'after' })
  a.app.svc.emit('news', { n: 'after' })
  await watcher.until(() => states(watcher).some((state) => state.version === version), 5000, 'the publish after Redis answered again')
  await events.until(() => delivered(events).has('after' as unknown as number), 5000, 'the emit after Redis answered again')
  t.equal(watcher.ended || events.ended, false, 'the same streams resumed')
  // B's subscriber connection stayed up: what Redis took reached it, late or not; the rest was logged.
  const missing = burst.emitted.length + 2 - delivered(events).size
  t.ok(missing <= lostEmits.length, `every emit delivered or logged: ${missing} not delivered, ${lostEmits.length} logged`)
  const versions = states(watcher).map((state) => state.version)
  t.equal(setbacks(versions), 0, `versions only grow on the stream: ${versions.join(',')}`)
  const late = await subscribe(a.origin, '/svc/channels/cart/c1')
  t.same((await late.frameCount(1))[0].data, { version, state: { n: 'after' } }, 'a new stream gets the same latest state')
  for (const stream of [events, watcher, late]) stream.close()
})

t.test('a new channel stream while Redis is stopped and nothing else runs: 503 within commandTimeout, its subscribe and its read together', async (t) => {
  // Larger than LIMIT here, so that one limit and two in a row (the subscribe's, then the read's) tell apart.
  const limit = 600
  const a = await startInstance(t, redis.url, { ...options, realtime: { commandTimeout: limit } })
  redis.freeze()
  t.teardown(() => redis.thaw())
  const { stream, took } = await timedSubscribe(a.origin, '/svc/channels/cart/idle')
  t.equal(stream.status, 503)
  await stream.end()
  t.match(stream.json(), { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /did not answer within 600 ms \(realtime\.commandTimeout\)/ })
  t.ok(took >= limit - 20 && took < limit + 450, `answered after ${took} ms: one commandTimeout, not one per command`)
  redis.thaw()
  await until(() => a.logs.some((line) => /realtime broker \(Redis\) is back/.test(String(line.msg))), 'the broker to be back')
  const watcher = await subscribe(a.origin, '/svc/channels/cart/idle')
  t.same((await watcher.frameCount(1))[0].data, { version: 0, state: null }, 'the same stream opens once Redis answers')
  watcher.close()
})

t.test('Redis killed and restarted mid-burst: nothing hangs, and nothing is lost silently', async (t) => {
  const { a, b, events, watcher, burst } = await burstUnderWay(t, 'k1', 'a')
  await redis.kill()
  const killed = Date.now()
  await pause(300)
  const since = [a.logs.length, b.logs.length]
  const restarting = Date.now()
  await redis.restart()
  for (const [i, instance] of [a, b].entries()) {
    await until(() => instance.logs.slice(since[i]).some((line) => /realtime broker \(Redis\) is back/.test(String(line.msg))), 'the broker to be back')
  }
  await pause(100)
  const settled = await burst.stop(LIMIT + SLACK)

  const slowest = Math.max(...settled.map((each) => each.took))
  t.ok(slowest < LIMIT + SLACK, `no publish waited longer than commandTimeout (slowest: ${slowest} ms)`)
  const failed = settled.filter((each) => each.error !== undefined)
  t.ok(failed.length > 0, `publishes made while Redis was away reject (${failed.length} of ${settled.length})`)
  for (const each of failed) t.equal(each.error?.code, 'FST_SVC_BROKER_UNAVAILABLE', `publish ${each.n}: ${each.error?.message}`)

  // What the epoch tests assert: the lost state is shown as lost, versions start again, the stream follows.
  const version = await b.app.svc.publish('cart', 'k1', { n: 'last' })
  await watcher.until(() => {
    const last = states(watcher).at(-1)
    return last?.version === version && last.state?.n === 'last'
  }, 5000, 'the last publish')
  // The state of the new store comes after the lost one although its version is lower: shown, not dropped
  // (version 0 and null first when nothing was published between the restart and the watcher's resync).
  const versions = states(watcher).map((state) => state.version)
  t.equal(setbacks(versions), 1, `versions start again once, with the store, and only grow otherwise: ${versions.join(',')}`)
  t.equal(watcher.ended || events.ended, false, 'the streams stayed open')

  b.app.svc.emit('news', { n: 'last' })
  await events.until(() => delivered(events).has('last' as unknown as number), 5000, 'the emit after the restart')
  // Every emit made while Redis was gone is logged. (One made once Redis is back, before A's subscriber
  // connection is, reaches no subscriber there: events are not replayed, and A logged its outage.)
  const lostEmits = errorsOf(b, /event "news" could not be handed to the realtime broker/)
  const whileGone = burst.emitted.filter((at) => at > killed && at < restarting).length
  t.ok(whileGone > 0 && lostEmits.length >= whileGone, `the ${whileGone} emits made while Redis was gone are logged (${lostEmits.length} logged)`)
  events.close()
  watcher.close()
})

/** Closes an instance with open streams and a publish in flight while Redis is stopped, then thaws it. */
async function closedWhileStopped (t: Test, commandTimeout: number | undefined): Promise<void> {
  const realtime = commandTimeout === undefined ? {} : { commandTimeout }
  const a = await startInstance(t, redis.url, { ...options, realtime })
  const events = await subscribe(a.origin, '/svc/events')
  const watcher = await subscribe(a.origin, '/svc/channels/cart/z1')
  await watcher.frameCount(1)
  redis.freeze()
  t.teardown(() => redis.thaw())
  // A publish in flight, and the connections all still up: the QUITs get no answer either.
  const publishing = a.app.svc.publish('cart', 'z1', { n: 1 }).then(() => undefined, (error: Error) => error)
  const started = Date.now()
  await a.app.close()
  const took = Date.now() - started
  const limit = commandTimeout ?? 2000
  t.ok(took < limit + 1000, `app.close() finished in ${took} ms (commandTimeout ${limit} + 1 s)`)
  t.equal(socketsTo(redis.port), 0, 'no socket to Redis is left')
  await events.end(1000)
  await watcher.end(1000)
  t.same([events.ended, watcher.ended], [true, true], 'the streams ended')
  t.match(await publishing, { code: 'FST_SVC_BROKER_UNAVAILABLE' }, 'the publish in flight rejected')
  redis.thaw()
}

t.test('app.close() with Redis stopped: streams end, it finishes within commandTimeout + 1 s, nothing is left', async (t) => {
  await closedWhileStopped(t, LIMIT)
})

t.test('the same with the default commandTimeout (2 s)', async (t) => {
  await closedWhileStopped(t, undefined)
})

t.test('app.close() with Redis killed under open streams', async (t) => {
  const a = await startInstance(t, redis.url, options)
  const events = await subscribe(a.origin, '/svc/events')
  const watcher = await subscribe(a.origin, '/svc/channels/cart/z2')
  await watcher.frameCount(1)
  await redis.kill()
  const started = Date.now()
  await a.app.close()
  const took = Date.now() - started
  t.ok(took < LIMIT + 1000, `app.close() finished in ${took} ms`)
  await events.end(1000)
  await watcher.end(1000)
  t.equal(socketsTo(redis.port), 0, 'no socket to Redis is left')
  await redis.restart()
})
