import { createRequire } from 'node:module'
import type { EventEmitter } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis, RedisOptions } from 'ioredis'
import type MQEmitterRedis from 'mqemitter-redis'
import { FST_SVC_BROKER_UNAVAILABLE } from '../errors.js'
import { importOptional } from '../util/optional.js'
import { INITIAL_STATE, type Broker, type BrokerListener, type BrokerMessage, type StoredState } from './broker.js'

type Emitter = ReturnType<typeof MQEmitterRedis>
type RedisClass = new (url: string, options: RedisOptions) => Redis

/**
 * Publishing and state connections fail at once while Redis is away (no offline queue, one retry), so
 * an emit or a publish never waits for a reconnection; the subscriber connection queues its commands
 * and resubscribes by itself when Redis is back.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1 }

/** Increments the version and replaces the state in one step, so two publishers never share a version. */
const STORE = "local version = redis.call('HINCRBY', KEYS[1], 'v', 1) redis.call('HSET', KEYS[1], 's', ARGV[1]) return version"

/**
 * Many instances through one Redis: messages by `mqemitter-redis` (an optional peer dependency), the
 * latest state of each channel key in a hash `{ v: version, s: state JSON }` under the key of its topic.
 */
export class RedisBroker implements Broker {
  /** One log line per outage, not one per reconnection attempt. */
  private failing = false

  private constructor (
    private readonly emitter: Emitter,
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
    private readonly states: Redis,
    private readonly log: FastifyBaseLogger
  ) {
    for (const connection of this.connections) {
      connection.on('error', (error: Error) => this.reportFailure(error))
      connection.on('ready', () => this.reportRecovery())
    }
    // mqemitter-redis re-emits its connections' errors here; they are logged above, once per outage.
    ;(emitter as unknown as { state: EventEmitter }).state.on('error', () => {})
  }

  /** Connects the three connections; rejects with FST_SVC_BROKER_UNAVAILABLE when Redis cannot be reached. */
  static async connect (url: string, log: FastifyBaseLogger): Promise<RedisBroker> {
    const { default: mqemitterRedis } = await importOptional<{ default: typeof MQEmitterRedis }>('mqemitter-redis', 'realtime.redis')
    // ioredis as mqemitter-redis itself resolves it: one install, one version of the client.
    const resolveFrom = createRequire(createRequire(import.meta.url).resolve('mqemitter-redis'))
    const Redis = resolveFrom('ioredis') as RedisClass
    const subscriber = new Redis(url, { lazyConnect: true })
    const publisher = new Redis(url, { ...FAIL_FAST, lazyConnect: true, enableAutoPipelining: true })
    const states = new Redis(url, { ...FAIL_FAST, lazyConnect: true })
    const all = [subscriber, publisher, states]
    try {
      await Promise.all(all.map(connectOrFail))
    } catch (error) {
      for (const connection of all) connection.disconnect()
      throw new FST_SVC_BROKER_UNAVAILABLE(`cannot connect to realtime.redis (${redacted(url)}): ${(error as Error).message}`)
    }
    const emitter = mqemitterRedis({ subConn: subscriber, pubConn: publisher })
    return new RedisBroker(emitter, subscriber, publisher, states, log)
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

  async store (key: string, json: string): Promise<number> {
    return Number(await this.states.eval(STORE, 1, key, json))
  }

  async read (key: string): Promise<StoredState> {
    const [version, json] = await this.states.hmget(key, 'v', 's')
    if (version === null || json === null) return INITIAL_STATE
    return { version: Number(version), json }
  }

  /**
   * QUIT where the connection is up, so replies in flight arrive; a connection that is down is dropped
   * at once (mqemitter-redis's own close would wait for a QUIT that never comes).
   */
  async close (): Promise<void> {
    await Promise.allSettled(this.connections.map((connection) => connection.status === 'ready' ? connection.quit() : connection.disconnect()))
  }

  private reportFailure (error: Error): void {
    if (this.failing) return
    this.failing = true
    this.log.error({ err: error }, 'fastify-svc-manifest: the realtime broker (Redis) failed; events and channel states do not reach other instances until it is back')
  }

  private reportRecovery (): void {
    if (!this.failing) return
    this.failing = false
    this.log.info('fastify-svc-manifest: the realtime broker (Redis) is back')
  }
}

/**
 * Resolves once the connection is ready; rejects with its first error (e.g. ECONNREFUSED), which says
 * more than the "Connection is closed" that `connect()` itself rejects with.
 */
function connectOrFail (connection: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    connection.once('error', reject)
    connection.connect().then(() => resolve(), reject)
  })
}

/** The URL without its password, for error messages. The options checked that it parses. */
function redacted (url: string): string {
  const parsed = new URL(url)
  if (parsed.password !== '') parsed.password = '***'
  return parsed.href
}
