import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { Phases } from '../lifecycle.js'
import type { RealtimeConfig } from '../options.js'
import { closeBroker, MemoryBroker, type Broker } from './broker.js'
import { ChannelHub } from './channels.js'
import { EventHub, type EmitOptions } from './events.js'
import { GivenBroker } from './given-broker.js'
import { OpenStreams } from './open-streams.js'
import { compilePayloadChecks } from './payload.js'
import { RedisBroker } from './redis-broker.js'
import { Topics } from './topics.js'

export type { EmitOptions } from './events.js'

export interface RealtimeDependencies {
  settings: RealtimeConfig
  /** The manifest name: keeps the Redis keys and topics of two services on one Redis apart. */
  serviceName: string
  /** Whether the plugin has `auth`: `to` needs it. */
  authConfigured: boolean
  /**
   * Whether the app declares an event or a channel. A hub without either (opened by an events stream) sends
   * nothing to other instances: it needs no Redis.
   */
  declaresRealtime: boolean
  /** The declared events and channels. */
  events: ReadonlyMap<string, { data?: object }>
  channels: ReadonlyMap<string, unknown>
  /** What an event's data schema may `$ref`. */
  sharedSchemas: Iterable<object>
  log: FastifyBaseLogger
  /** The app's phase: streams are refused from `preClose` on. */
  lifecycle: Phases
}

/**
 * Emit, publish and the open streams of one app, over a message bus and a state store: mqemitter and a
 * Map in one process, or mqemitter-redis and Redis keys across instances. Started by `Realtime.start`
 * (see RealtimeOnDemand), so an instance always has its broker; the plugin hands it out only then.
 */
export class Realtime {
  private constructor (
    private readonly broker: Broker,
    private readonly streams: OpenStreams,
    private readonly events: EventHub,
    private readonly channels: ChannelHub
  ) {}

  /** Compiles the payload checks, connects the broker (rejecting with a coded error when it cannot), subscribes. */
  static async start (deps: RealtimeDependencies): Promise<Realtime> {
    const checks = await compilePayloadChecks(deps.events, deps.sharedSchemas)
    const broker = await openBroker(deps)
    const streams = new OpenStreams(deps.settings, deps.log, deps.lifecycle)
    const topics = new Topics(deps.serviceName)
    try {
      const channels = new ChannelHub({ ...broker, streams, topics, channels: deps.channels, log: deps.log })
      const events = await EventHub.start({ bus: broker.bus, streams, topics, events: deps.events, checks, authConfigured: deps.authConfigured, log: deps.log })
      return new Realtime(broker, streams, events, channels)
    } catch (error) /* c8 ignore start: a broker that connected, then failed to subscribe (Redis gone between the two), cannot be staged reliably; this keeps its connections from outliving the failed start */ {
      streams.endAll()
      await closeBroker(broker)
      throw error
    } /* c8 ignore stop */
  }

  emit (event: string, data: unknown, options?: EmitOptions): void {
    this.events.emit(event, data, options)
  }

  publish (channel: string, key: string, state: unknown): Promise<number> {
    return this.channels.publish(channel, key, state)
  }

  /** The latest state of one channel key: `{ version: 0, state: null }` before any publish. */
  readChannel (channel: string, key: string): Promise<{ version: number, state: unknown }> {
    return this.channels.read(channel, key)
  }

  /**
   * Calls `onPublish` on each publish to one channel key from now on; resolves, once subscribed, to the
   * function that stops it.
   */
  followChannel (channel: string, key: string, onPublish: () => void): Promise<() => void> {
    return this.channels.follow(channel, key, onPublish)
  }

  /** Opens an events stream for a subscriber who asked for `events`. `lastEventId`: the client's header. */
  openEvents (request: FastifyRequest, reply: FastifyReply, events: ReadonlySet<string>, subject: string | undefined, lastEventId: unknown): void {
    this.events.open(request, reply, events, subject, lastEventId)
  }

  /** Opens a channel stream: the latest state first, then every newer one. */
  async openChannel (request: FastifyRequest, reply: FastifyReply, channel: string, key: string): Promise<void> {
    await this.channels.open(request, reply, channel, key)
  }

  /** `preClose`: ends every stream, so the server can close; refuses new ones. */
  endStreams (): void {
    this.streams.endAll()
  }

  /** `onClose`: after the server closed, the broker's connections. */
  async close (): Promise<void> {
    this.streams.endAll()
    await closeBroker(this.broker)
  }
}

/**
 * The bus and the store: in memory, or Redis for an app with `realtime.redis`, or the user's own
 * `realtime.broker`, when the app declares events or channels. The one place a broker is chosen.
 */
async function openBroker (deps: RealtimeDependencies): Promise<Broker> {
  const { redis, broker: given, connectTimeout, commandTimeout } = deps.settings
  const broker = !deps.declaresRealtime || (redis === undefined && given === undefined)
    ? await MemoryBroker.create()
    : given !== undefined
      ? new GivenBroker(given, commandTimeout)
      : await RedisBroker.connect(redis as string, { connectTimeout, commandTimeout, log: deps.log, lifecycle: deps.lifecycle })
  return { bus: broker, store: broker }
}
