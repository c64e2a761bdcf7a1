import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis, RedisOptions } from 'ioredis'
import type MQEmitterRedis from 'mqemitter-redis'
import { FST_SVC_BROKER_UNAVAILABLE } from '../errors.js'
import { withinTime } from '../util/within-time.js'
import { importOptional } from '../util/optional.js'
import type { Phases } from '../lifecycle.js'
import { INITIAL_STATE, type BrokerListener, type BrokerMessage, type MessageBus, type StateStore, type StateVersion, type StoredState } from './broker.js'

type Emitter = ReturnType<typeof MQEmitterRedis>
type RedisClass = new (url: string, options: RedisOptions) => Redis

export interface RedisSettings {
  /** Milliseconds `connect()` waits for Redis to answer before it gives up (and each reconnection's TCP connect). */
  connectTimeout: number
  /** Milliseconds each command waits for its answer; Redis silent that long counts as a lost connection. */
  commandTimeout: number
  log: FastifyBaseLogger
  /** Once the app has closed, connections that close are not an outage. */
  lifecycle: Phases
}

/**
 * Publishing and state connections fail at once while Redis is away (no offline queue, one retry), so
 * an emit or a publish never waits for a reconnection; the subscriber connection queues its commands
 * and resubscribes by itself when Redis is back. A command that got no answer is not sent again on the
 * next connection: its caller was told it failed.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false }

/**
 * A connection being closed does not wait for Redis to close its side (`disconnectTimeout: 0`), so nothing
 * outlives `close()` or a failed start.
 */
const CLOSE_AT_ONCE: RedisOptions = { lazyConnect: true, disconnectTimeout: 0 }

/**
 * What every connection does, once started, against a Redis that stops answering (SIGSTOP, a partition:
 * the socket stays up, nothing comes back), with ioredis's own limits: each command rejects after
 * `commandTimeout`, and a connection that waited that long for any byte is dropped (`socketTimeout`), so
 * the broker is down (new streams refused, publishes failing at once, nothing piling up) and reconnects;
 * when Redis answers again, it is back as after any outage. Set once the start succeeded: until then
 * `connectTimeout` alone bounds the start, handshake included. ioredis reads both options at each command.
 */
function limitCommands (connection: Redis, commandTimeout: number): void {
  Object.assign(connection.options, { commandTimeout, socketTimeout: commandTimeout })
}

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
export class RedisBroker implements MessageBus, StateStore {
  /** From a lost connection until all three are back and subscribed again: one log line each way per outage. */
  private down = false
  /** While the subscriptions are being confirmed after an outage. */
  private returning = false
  private readonly reconnectListeners: Array<() => void> = []

  private constructor (
    private readonly emitter: Emitter,
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
    private readonly states: Redis,
    private readonly log: FastifyBaseLogger,
    private readonly commandTimeout: number,
    private readonly lifecycle: Phases
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
    const options: RedisOptions = { ...CLOSE_AT_ONCE, connectTimeout: settings.connectTimeout }
    const subscriber = new Redis(url, options)
    const publisher = new Redis(url, { ...options, ...FAIL_FAST, enableAutoPipelining: true })
    const states = new Redis(url, { ...options, ...FAIL_FAST })
    const all = [subscriber, publisher, states]
    try {
      await withinTime(Promise.all(all.map(connectOrFail)), settings.connectTimeout, 'no answer within %d ms (realtime.connectTimeout)')
    } catch (error) {
      // Nobody listens to these connections any more: an error from their sockets closing must not
      // surface as ioredis's "Unhandled error event". Rejected only once their sockets are gone, so a
      // process whose start failed has nothing left open and can exit.
      for (const connection of all) connection.on('error', ignore)
      await Promise.all(all.map(disconnected))
      throw new FST_SVC_BROKER_UNAVAILABLE(`cannot connect to realtime.redis (${redacted(url)}): ${(error as Error).message}`)
    }
    for (const connection of all) limitCommands(connection, settings.commandTimeout)
    const emitter = mqemitterRedis({ subConn: subscriber, pubConn: publisher })
    return new RedisBroker(emitter, subscriber, publisher, states, settings.log, settings.commandTimeout, settings.lifecycle)
  }

  private get connections (): Redis[] {
    return [this.subscriber, this.publisher, this.states]
  }

  get available (): boolean {
    return this.connections.every((connection) => connection.status === 'ready')
  }

  send (message: BrokerMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.emitter.emit(message, (error) => { if (error) reject(this.explained(error)); else resolve() })
    })
  }

  subscribe (topic: string, listener: BrokerListener): Promise<void> {
    return new Promise((resolve) => { this.emitter.on(topic, listener, resolve) })
  }

  unsubscribe (topic: string, listener: BrokerListener): void {
    this.emitter.removeListener(topic, listener)
  }

  async store (key: string, json: string): Promise<StateVersion> {
    const [version, epoch] = await this.answer(this.states.eval(STORE, 1, key, json, randomUUID()) as Promise<[number, string]>)
    return { version, epoch }
  }

  async read (key: string): Promise<StoredState> {
    const [version, json, epoch] = await this.answer(this.states.hmget(key, 'v', 's', 'e'))
    if (version === null || json === null) return INITIAL_STATE
    // A hash written before epochs existed has none; its next publish gives it one.
    return { version: Number(version), epoch: epoch ?? '', json }
  }

  /**
   * Rejects with FST_SVC_BROKER_UNAVAILABLE when `work` (several commands in a row, each with its own
   * limit) has not settled within `commandTimeout`: a new stream is answered within it.
   */
  bounded<T> (work: Promise<T>, what: string): Promise<T> {
    return withinTime(work, this.commandTimeout, 'Redis did not answer within %d ms (realtime.commandTimeout)')
      .catch((error: Error) => { throw error instanceof FST_SVC_BROKER_UNAVAILABLE ? error : new FST_SVC_BROKER_UNAVAILABLE(`${what}: ${error.message}`) })
  }

  onReconnect (listener: () => void): void {
    this.reconnectListeners.push(listener)
  }

  /**
   * QUIT where the connection is up, so replies in flight arrive; a connection that is down is dropped
   * at once (mqemitter-redis's own close would wait for a QUIT that never comes). A QUIT that Redis does
   * not answer fails after `commandTimeout`, and its connection is dropped then: resolves once every
   * socket is gone, within `commandTimeout` whatever Redis does.
   */
  async close (): Promise<void> {
    await Promise.all(this.connections.map(async (connection) => {
      if (connection.status === 'ready') await connection.quit().catch(ignore)
      await disconnected(connection)
    }))
  }

  /** Whether the app has closed: it closes the connections then, which is no outage. */
  private get closed (): boolean {
    return this.lifecycle.phase === 'closed'
  }

  /** The command's answer; a command Redis did not answer in time rejects with an error naming the limit. */
  private answer<T> (command: Promise<T>): Promise<T> {
    return command.catch((error: Error) => { throw this.explained(error) })
  }

  private explained (error: Error): Error {
    if (error.message !== 'Command timed out') return error
    return new Error(`Redis did not answer within ${this.commandTimeout} ms (realtime.commandTimeout); it may still carry it out once it answers again`, { cause: error })
  }

  private reportFailure (error?: Error): void {
    if (this.down || this.closed) return
    this.down = true
    this.log.error({ err: error }, 'fastify-svc-manifest: the realtime broker (Redis) failed; events and channel states do not reach other instances until it is back')
  }

  /**
   * After an outage, once the three connections are up: Redis answers in order, so once the subscriber
   * connection answers a PING, the subscriptions ioredis sent again before it are in place. Only then is
   * the broker back, and the reconnect listeners run (a state read now cannot miss a later publish).
   */
  private checkRecovery (): void {
    if (!this.down || this.returning || this.closed || !this.available) return
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

/**
 * Drops the connection (no reconnection) and resolves once its socket is closed. ioredis ends the socket
 * and, with `disconnectTimeout: 0`, destroys it in the next turn: a Redis that does not close its side
 * (stopped, or a host that never answers) cannot keep it open.
 */
async function disconnected (connection: Redis): Promise<void> {
  const socket = connection.stream as Socket | undefined
  connection.disconnect()
  // Not events.once: it would reject on the socket's 'error' (ECONNREFUSED), which ioredis reports itself.
  if (socket !== undefined && !socket.closed) await new Promise((resolve) => socket.once('close', resolve))
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
