import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type { EventEmitter } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis, RedisOptions } from 'ioredis'
import type MQEmitterRedis from 'mqemitter-redis'
import { FST_SVC_BROKER_UNAVAILABLE } from '../errors.js'
import { importOptional } from '../util/optional.js'
import { INITIAL_STATE, type Broker, type BrokerListener, type BrokerMessage, type StateVersion, type StoredState } from './broker.js'

type Emitter = ReturnType<typeof MQEmitterRedis>
type RedisClass = new (url: string, options: RedisOptions) => Redis

export interface RedisSettings {
  /** Milliseconds `connect()` waits for Redis to answer before it gives up (and each reconnection's TCP connect). */
  connectTimeout: number
  log: FastifyBaseLogger
}

/**
 * Publishing and state connections fail at once while Redis is away (no offline queue, one retry), so
 * an emit or a publish never waits for a reconnection; the subscriber connection queues its commands
 * and resubscribes by itself when Redis is back.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1 }

/**
 * Increments the version and replaces the state in one step, so two publishers never share a version.
 * The epoch `e` is set when the hash is created (ARGV[2], a fresh random id): a key that Redis lost
 * (restarted empty, flushed, evicted) starts again at version 1 under another epoch.
 */
const STORE = "local v = redis.call('HINCRBY', KEYS[1], 'v', 1) redis.call('HSETNX', KEYS[1], 'e', ARGV[2]) redis.call('HSET', KEYS[1], 's', ARGV[1]) return { v, redis.call('HGET', KEYS[1], 'e') }"

/** For errors nobody is waiting for any more. */
function ignore (): void {}

/**
 * Many instances through one Redis: messages by `mqemitter-redis` (an optional peer dependency), the
 * latest state of each channel key in a hash `{ v: version, e: epoch, s: state JSON }` under the key of
 * its topic.
 */
export class RedisBroker implements Broker {
  /** From a lost connection until all three are back and subscribed again: one log line each way per outage. */
  private down = false
  /** While the subscriptions are being confirmed after an outage. */
  private returning = false
  /** Set by `close()`: the connections closing then are not an outage. */
  private closing = false
  private readonly reconnectListeners: Array<() => void> = []

  private constructor (
    private readonly emitter: Emitter,
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
    private readonly states: Redis,
    private readonly log: FastifyBaseLogger
  ) {
    for (const connection of this.connections) {
      // A clean close (Redis shut down) comes without an error; a quick restart may bring none at all.
      connection.on('close', () => this.reportFailure())
      connection.on('error', (error: Error) => this.reportFailure(error))
      // ioredis emits 'ready' first and sends the subscriptions again right after it, in the same turn.
      connection.on('ready', () => setImmediate(() => this.checkRecovery()))
    }
    // mqemitter-redis re-emits its connections' errors here; they are logged above, once per outage.
    ;(emitter as unknown as { state: EventEmitter }).state.on('error', ignore)
  }

  /**
   * Connects the three connections; rejects with FST_SVC_BROKER_UNAVAILABLE when Redis cannot be reached
   * or does not answer within `connectTimeout`. A failed start closes every connection it opened.
   */
  static async connect (url: string, settings: RedisSettings): Promise<RedisBroker> {
    const { default: mqemitterRedis } = await importOptional<{ default: typeof MQEmitterRedis }>('mqemitter-redis', 'realtime.redis')
    // ioredis as mqemitter-redis itself resolves it: one install, one version of the client.
    const resolveFrom = createRequire(createRequire(import.meta.url).resolve('mqemitter-redis'))
    const Redis = resolveFrom('ioredis') as RedisClass
    const { connectTimeout } = settings
    const subscriber = new Redis(url, { lazyConnect: true, connectTimeout })
    const publisher = new Redis(url, { ...FAIL_FAST, lazyConnect: true, connectTimeout, enableAutoPipelining: true })
    const states = new Redis(url, { ...FAIL_FAST, lazyConnect: true, connectTimeout })
    const all = [subscriber, publisher, states]
    try {
      await withinTime(Promise.all(all.map(connectOrFail)), connectTimeout)
    } catch (error) {
      for (const connection of all) {
        // Nobody listens to these connections any more: an error from their sockets closing must not
        // surface as ioredis's "Unhandled error event".
        connection.on('error', ignore)
        connection.disconnect()
      }
      throw new FST_SVC_BROKER_UNAVAILABLE(`cannot connect to realtime.redis (${redacted(url)}): ${(error as Error).message}`)
    }
    const emitter = mqemitterRedis({ subConn: subscriber, pubConn: publisher })
    return new RedisBroker(emitter, subscriber, publisher, states, settings.log)
  }

  private get connections (): Redis[] {
    return [this.subscriber, this.publisher, this.states]
  }

  get available (): boolean {
    return this.connections.every((connection) => connection.status === 'ready')
  }

  send (message: BrokerMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.emitter.emit(message, (error) => { if (error) reject(error); else resolve() })
    })
  }

  subscribe (topic: string, listener: BrokerListener): Promise<void> {
    return new Promise((resolve) => { this.emitter.on(topic, listener, resolve) })
  }

  unsubscribe (topic: string, listener: BrokerListener): void {
    this.emitter.removeListener(topic, listener)
  }

  async store (key: string, json: string): Promise<StateVersion> {
    const [version, epoch] = await this.states.eval(STORE, 1, key, json, randomUUID()) as [number, string]
    return { version, epoch }
  }

  async read (key: string): Promise<StoredState> {
    const [version, json, epoch] = await this.states.hmget(key, 'v', 's', 'e')
    if (version === null || json === null) return INITIAL_STATE
    // A hash written before epochs existed has none; its next publish gives it one.
    return { version: Number(version), epoch: epoch ?? '', json }
  }

  onReconnect (listener: () => void): void {
    this.reconnectListeners.push(listener)
  }

  /**
   * QUIT where the connection is up, so replies in flight arrive; a connection that is down is dropped
   * at once (mqemitter-redis's own close would wait for a QUIT that never comes).
   */
  async close (): Promise<void> {
    this.closing = true
    await Promise.allSettled(this.connections.map((connection) => connection.status === 'ready' ? connection.quit() : connection.disconnect()))
  }

  private reportFailure (error?: Error): void {
    if (this.down || this.closing) return
    this.down = true
    this.log.error({ err: error }, 'fastify-svc-manifest: the realtime broker (Redis) failed; events and channel states do not reach other instances until it is back')
  }

  /**
   * After an outage, once the three connections are up: Redis answers in order, so once the subscriber
   * connection answers a PING, the subscriptions ioredis sent again before it are in place. Only then is
   * the broker back, and the reconnect listeners run (a state read now cannot miss a later publish).
   */
  private checkRecovery (): void {
    if (!this.down || this.returning || this.closing || !this.available) return
    this.returning = true
    // A PING that fails (the connection lost again) leaves the broker down: the next 'ready' checks again.
    this.subscriber.ping().then(() => this.recovered(), ignore).finally(() => { this.returning = false })
  }

  private recovered (): void {
    /* c8 ignore next -- a connection lost again during the PING's round trip: its next 'ready' checks again */
    if (!this.available) return
    this.down = false
    this.log.info('fastify-svc-manifest: the realtime broker (Redis) is back')
    for (const listener of this.reconnectListeners) listener()
  }
}

/** Rejects after `ms` milliseconds when `promise` has not settled: a Redis that accepts and never answers. */
function withinTime<T> (promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (realtime.connectTimeout)`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Resolves once the connection is ready; rejects with its first error (e.g. ECONNREFUSED), which says
 * more than the "Connection is closed" that `connect()` itself rejects with.
 */
function connectOrFail (connection: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    connection.once('error', reject)
    connection.connect().then(() => {
      connection.off('error', reject)
      resolve()
    }, reject)
  })
}

/** The URL without its password, for error messages. The options checked that it parses. */
function redacted (url: string): string {
  const parsed = new URL(url)
  if (parsed.password !== '') parsed.password = '***'
  return parsed.href
}
