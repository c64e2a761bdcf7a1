import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import {
  FST_SVC_AUTH_NOT_CONFIGURED, FST_SVC_BROKER_UNAVAILABLE, FST_SVC_CLOSED, FST_SVC_INVALID_EVENT_DATA,
  FST_SVC_INVALID_OPTION, FST_SVC_INVALID_PUBLISH, FST_SVC_PAYLOAD_TOO_LARGE, FST_SVC_UNKNOWN_CHANNEL, FST_SVC_UNKNOWN_EVENT
} from '../errors.js'
import { MemoryBroker, type Broker, type BrokerListener, type BrokerMessage, type StateVersion, type StoredState } from './broker.js'
import { compilePayloadChecks, type PayloadCheck } from './payload.js'
import { RedisBroker } from './redis-broker.js'
import { isChannelKey } from './addressing.js'
import {
  EventFrames, HEARTBEAT, STATE_FRAME_OVERHEAD, SseStream, eventFrameOverhead, oversizedFrame, startEventStream, stateFrame
} from './stream.js'

export interface RealtimeSettings {
  /** Redis URL: fan-out across instances. Without it, one process. */
  redis?: string
  /** Seconds between heartbeat comments on every stream. */
  heartbeat: number
  /** Bytes a stream may hold unsent before the subscriber is dropped; no frame may be larger. */
  maxBufferBytes: number
  /** Milliseconds `ready()` waits for Redis to answer. */
  connectTimeout: number
}

export interface RealtimeDependencies {
  settings: RealtimeSettings
  /** The manifest name: keeps the Redis keys and topics of two services on one Redis apart. */
  serviceName: string
  /** Whether the plugin has `auth`: `to` needs it. */
  authConfigured: boolean
  /** The declared events and channels, read when they are used (they may be added until `ready()`). */
  events: ReadonlyMap<string, { data?: object }>
  channels: ReadonlyMap<string, unknown>
  log: FastifyBaseLogger
}

/** An event on its way: serialised once by the instance that emitted it. */
interface EventMessage extends BrokerMessage {
  event: string
  json: string
  to?: string
}

/** A channel state on its way; its topic names the channel and the key. */
interface StateMessage extends BrokerMessage {
  version: number
  epoch: string
  json: string
}

export interface EmitOptions {
  /** A subject: only subscribers whose credential has it receive the event. Needs `auth`. */
  to?: string
}

/** One subscriber of the events stream. Its ids start after the client's `Last-Event-ID`, or at 1. */
class EventSubscriber {
  constructor (
    readonly stream: SseStream,
    readonly events: ReadonlySet<string>,
    readonly subject: string | undefined,
    private nextId: number
  ) {}

  deliver (frames: EventFrames): void {
    this.stream.write(frames.withId(this.nextId++))
  }
}

/**
 * One watcher of a channel key. Until its stream starts, states that arrive are kept (the newest only):
 * one published between the subscription and the read of the stored state must not be lost. Once
 * started, only a state newer than the last one written goes out, so within an epoch versions only grow
 * on a stream, even when two instances' publishes cross on the way. A state of another epoch is always
 * newer: its store started again (Redis restarted empty), and its versions with it.
 */
class ChannelWatcher {
  private stream: SseStream | undefined
  /** The last state written; only its place is kept, not its JSON. */
  private last: StateVersion = { version: -1, epoch: '' }
  private pending: StoredState | undefined

  offer (state: StoredState, frame: () => string): void {
    if (this.stream === undefined) {
      if (this.pending === undefined || isNewer(state, this.pending)) this.pending = state
    } else if (isNewer(state, this.last)) {
      this.last = { version: state.version, epoch: state.epoch }
      this.stream.write(frame())
    }
  }

  /** Starts the stream with the stored state, then any newer state that arrived meanwhile. */
  begin (stream: SseStream, stored: StoredState): void {
    this.stream = stream
    const pending = this.pending
    this.pending = undefined
    this.offer(stored, () => stateFrame(stored.version, stored.json))
    if (pending !== undefined) this.offer(pending, () => stateFrame(pending.version, pending.json))
  }
}

/** The local watchers of one channel key, and the broker subscription they share. */
interface WatchedTopic {
  watchers: Set<ChannelWatcher>
  listener: BrokerListener
  subscribed: Promise<void>
}

/**
 * Emit, publish and the open streams of one app. Each message reaches this instance once, from the
 * broker, whoever sent it; it is serialised once by the sender and framed once here, then written to
 * each subscriber it is addressed to. Targeting happens here, on the receiving side: an event with `to`
 * is written only to the streams whose subject is `to`, a channel state only to the watchers of its key.
 */
export class Realtime {
  private broker: Broker | undefined
  private checks = new Map<string, PayloadCheck>()
  private readonly streams = new Set<SseStream>()
  private readonly byEvent = new Map<string, Set<EventSubscriber>>()
  private readonly bySubject = new Map<string, Set<EventSubscriber>>()
  private readonly topics = new Map<string, WatchedTopic>()
  private heartbeat: NodeJS.Timeout | undefined
  /** Set by `preClose`: streams end, new ones are refused; emits of requests still running go on. */
  private closing = false
  /** Set by `onClose`: the broker is closed. */
  private closed = false
  private readonly namespace: string

  constructor (private readonly deps: RealtimeDependencies) {
    // Topic levels are separated by "/", and Redis pattern subscriptions read "*": neither may come from the
    // name. A lone surrogate (which encodeURIComponent refuses) becomes U+FFFD: only a namespace, not a key.
    this.namespace = `svc:${encodeURIComponent(deps.serviceName.toWellFormed()).replace(/\*/g, '%2A')}`
  }

  /** At `ready()`: compiles the payload checks, connects the broker, starts the heartbeat. */
  async start (sharedSchemas: Iterable<object>): Promise<void> {
    this.checks = await compilePayloadChecks(this.deps.events, sharedSchemas)
    const { redis, heartbeat } = this.deps.settings
    this.broker = redis === undefined
      ? await MemoryBroker.create()
      : await RedisBroker.connect(redis, { connectTimeout: this.deps.settings.connectTimeout, log: this.deps.log })
    this.broker.onReconnect(() => this.resync())
    await this.broker.subscribe(`${this.namespace}/event/+`, this.onEventMessage)
    this.heartbeat = setInterval(() => this.beat(), heartbeat * 1000).unref()
  }

  emit (event: string, data: unknown, options?: EmitOptions): void {
    const broker = this.usableBroker('app.svc.emit()')
    if (!this.deps.events.has(event)) {
      throw new FST_SVC_UNKNOWN_EVENT(`app.svc.emit("${event}"): no such event is declared (declared: ${listOf(this.deps.events.keys())}). Declare it in the "events" option or with app.svc.event().`)
    }
    const to = this.targetOf(event, options)
    const problem = this.checks.get(event)?.(data)
    if (problem !== undefined) throw new FST_SVC_INVALID_EVENT_DATA(`event "${event}": ${problem}. Nothing was delivered.`)
    const json = toJson(data, (reason) => new FST_SVC_INVALID_EVENT_DATA(`event "${event}": the payload is not JSON (${reason}). Nothing was delivered.`))
    const bytes = oversizedFrame(eventFrameOverhead(event), json, this.deps.settings.maxBufferBytes)
    if (bytes !== undefined) throw this.tooLarge(`app.svc.emit("${event}")`, 'its frame', bytes, 'Nothing was delivered')
    const message: EventMessage = { topic: this.eventTopic(event), event, json }
    if (to !== undefined) message.to = to
    broker.send(message).catch((error) => {
      this.deps.log.error({ err: error, event }, 'fastify-svc-manifest: an event could not be handed to the realtime broker; it was not delivered')
    })
  }

  /**
   * Replaces the state of one channel key and sends it to its watchers on every instance. Mistakes in
   * the call are thrown at once, like emit()'s; the promise rejects only when the broker fails.
   */
  publish (channel: string, key: string, state: unknown): Promise<number> {
    const broker = this.usableBroker('app.svc.publish()')
    if (!this.deps.channels.has(channel)) {
      throw new FST_SVC_UNKNOWN_CHANNEL(`app.svc.publish("${channel}"): no such channel is declared (declared: ${listOf(this.deps.channels.keys())}).`)
    }
    if (!isChannelKey(key)) throw new FST_SVC_INVALID_PUBLISH(`app.svc.publish("${channel}", key): the key must be a non-empty string of well-formed Unicode; got ${typeof key === 'string' ? 'a string that is not' : typeof key}.`)
    const json = toJson(state, (reason) => new FST_SVC_INVALID_PUBLISH(`channel "${channel}": the state is not JSON (${reason}).`))
    const bytes = oversizedFrame(STATE_FRAME_OVERHEAD, json, this.deps.settings.maxBufferBytes)
    if (bytes !== undefined) throw this.tooLarge(`app.svc.publish("${channel}")`, 'the state\'s frame', bytes, 'Nothing was stored or delivered')
    const topic = this.channelTopic(channel, key)
    return broker.store(topic, json).then(async ({ version, epoch }) => {
      const message: StateMessage = { topic, version, epoch, json }
      await broker.send(message)
      return version
    })
  }

  /** Opens an events stream for a subscriber who asked for `events`. `lastEventId`: the client's header. */
  openEvents (request: FastifyRequest, reply: FastifyReply, events: ReadonlySet<string>, subject: string | undefined, lastEventId: unknown): void {
    this.assertOpen()
    const stream = this.track(startEventStream(request, reply), () => this.removeSubscriber(subscriber))
    const subscriber = new EventSubscriber(stream, events, subject, firstIdAfter(lastEventId))
    if (!stream.open) return
    for (const event of events) addTo(this.byEvent, event, subscriber)
    if (subject !== undefined) addTo(this.bySubject, subject, subscriber)
  }

  /** Opens a channel stream: the latest state first, then every newer one. */
  async openChannel (request: FastifyRequest, reply: FastifyReply, channel: string, key: string): Promise<void> {
    const broker = this.broker as Broker
    if (!broker.available) throw new FST_SVC_BROKER_UNAVAILABLE('channel streams need Redis, which cannot be reached now; retry later.')
    const topic = this.channelTopic(channel, key)
    const watcher = new ChannelWatcher()
    // Subscribed before the state is read: a publish in between is caught by the watcher, not lost.
    await this.watch(topic, watcher)
    let stored: StoredState
    try {
      stored = await broker.read(topic)
    } catch (error) {
      this.unwatch(topic, watcher)
      throw new FST_SVC_BROKER_UNAVAILABLE(`the state of channel "${channel}" cannot be read: ${(error as Error).message}`)
    }
    // Checked after the awaits: the app may have started closing meanwhile, and a stream opened now would hold it open.
    if (this.closing) {
      this.unwatch(topic, watcher)
      throw closedError()
    }
    const stream = this.track(startEventStream(request, reply), () => this.unwatch(topic, watcher))
    if (!stream.open) {
      this.unwatch(topic, watcher)
      return
    }
    watcher.begin(stream, stored)
  }

  /** `preClose`: ends every stream, so the server can close; refuses new ones. */
  endStreams (): void {
    this.closing = true
    clearInterval(this.heartbeat)
    for (const stream of this.streams) stream.end()
  }

  /** `onClose`: after the server closed, the broker's connections. */
  async close (): Promise<void> {
    this.endStreams()
    this.closed = true
    await this.broker?.close()
  }

  private readonly onEventMessage: BrokerListener = (message, done) => {
    const { event, json, to } = message as EventMessage
    if (this.refusedOnArrival(eventFrameOverhead(event), json, { event })) return done()
    const frames = new EventFrames(event, json)
    if (to === undefined) {
      for (const subscriber of this.byEvent.get(event) ?? []) subscriber.deliver(frames)
    } else {
      for (const subscriber of this.bySubject.get(to) ?? []) {
        if (subscriber.events.has(event)) subscriber.deliver(frames)
      }
    }
    done()
  }

  private track (response: ServerResponse, onClose: () => void): SseStream {
    const stream: SseStream = new SseStream(response, this.deps.settings, () => {
      this.streams.delete(stream)
      onClose()
    }, (bufferedBytes) => {
      this.deps.log.warn({ bufferedBytes, limit: this.deps.settings.maxBufferBytes }, 'fastify-svc-manifest: a stream subscriber does not read; disconnected it')
    })
    if (stream.open) this.streams.add(stream)
    return stream
  }

  private beat (): void {
    for (const stream of this.streams) stream.write(HEARTBEAT)
  }

  private removeSubscriber (subscriber: EventSubscriber): void {
    for (const event of subscriber.events) removeFrom(this.byEvent, event, subscriber)
    if (subscriber.subject !== undefined) removeFrom(this.bySubject, subscriber.subject, subscriber)
  }

  private watch (topic: string, watcher: ChannelWatcher): Promise<void> {
    let watched = this.topics.get(topic)
    if (watched === undefined) {
      // One listener per subscription: mqemitter removes listeners later, by identity, so a listener
      // shared with a newer subscription of the same topic would be removed with the old one.
      const listener: BrokerListener = (message, done) => {
        const { version, epoch, json } = message as StateMessage
        this.deliverState(topic, watched as WatchedTopic, { version, epoch, json })
        done()
      }
      watched = { watchers: new Set(), listener, subscribed: (this.broker as Broker).subscribe(topic, listener) }
      this.topics.set(topic, watched)
    }
    watched.watchers.add(watcher)
    return watched.subscribed
  }

  /** Writes `state` to the watchers of `topic` that have not had it; the frame is built once, if needed. */
  private deliverState (topic: string, watched: WatchedTopic, state: StoredState): void {
    if (this.refusedOnArrival(STATE_FRAME_OVERHEAD, state.json, { topic })) return
    let frame: string | undefined
    for (const each of watched.watchers) each.offer(state, () => (frame ??= stateFrame(state.version, state.json)))
  }

  /**
   * After the broker was disconnected: the stored state of each watched key goes to its watchers, so a
   * publish made while this instance was not subscribed is not lost, and a state the store lost (Redis
   * restarted empty) is not shown as current. A watcher that has it already gets nothing.
   */
  private resync (): void {
    const broker = this.broker as Broker
    for (const [topic, watched] of this.topics) {
      broker.read(topic).then((state) => this.deliverState(topic, watched, state), (error: Error) => {
        this.deps.log.warn({ err: error, topic }, 'fastify-svc-manifest: the state of a watched channel key could not be read after the realtime broker came back; its watchers get its next publish')
      })
    }
  }

  /**
   * A message from an instance whose `maxBufferBytes` is larger than this one's: written here, its frame
   * would disconnect every subscriber. It is logged and not delivered.
   */
  private refusedOnArrival (overhead: number, json: string, about: Record<string, string>): boolean {
    const limit = this.deps.settings.maxBufferBytes
    const bytes = oversizedFrame(overhead, json, limit)
    if (bytes === undefined) return false
    this.deps.log.warn({ ...about, bytes, limit }, 'fastify-svc-manifest: a message from another instance is larger than realtime.maxBufferBytes here; not delivered')
    return true
  }

  private tooLarge (call: string, what: string, bytes: number, outcome: string): Error {
    const limit = this.deps.settings.maxBufferBytes
    return new FST_SVC_PAYLOAD_TOO_LARGE(`${call}: ${what} is ${bytes} bytes, more than realtime.maxBufferBytes (${limit}), past which a stream is disconnected. ${outcome}. Send less (e.g. an id the subscriber fetches), or raise realtime.maxBufferBytes.`)
  }

  private unwatch (topic: string, watcher: ChannelWatcher): void {
    const watched = this.topics.get(topic) as WatchedTopic
    watched.watchers.delete(watcher)
    if (watched.watchers.size > 0) return
    this.topics.delete(topic)
    ;(this.broker as Broker).unsubscribe(topic, watched.listener)
  }

  /** The plugin hands the instance out once `start()` resolved: the broker is there. */
  private usableBroker (call: string): Broker {
    if (this.closed) throw new FST_SVC_CLOSED(`${call} was called after app.close().`)
    return this.broker as Broker
  }

  private assertOpen (): void {
    if (this.closing) throw closedError()
  }

  private targetOf (event: string, options: EmitOptions | undefined): string | undefined {
    const to = options?.to
    if (to === undefined) return undefined
    if (!this.deps.authConfigured) {
      throw new FST_SVC_AUTH_NOT_CONFIGURED(`app.svc.emit("${event}", data, { to }): "to" addresses a subject, and subjects come from credentials; the plugin has no "auth" option.`)
    }
    if (typeof to !== 'string' || to === '') {
      throw new FST_SVC_INVALID_OPTION(`app.svc.emit("${event}", data, { to }): "to" must be a subject, a non-empty string; got ${JSON.stringify(to) ?? typeof to}.`)
    }
    return to
  }

  private eventTopic (event: string): string {
    return `${this.namespace}/event/${event}`
  }

  private channelTopic (channel: string, key: string): string {
    // encodeURIComponent is one-to-one on well-formed strings: two keys never share a topic.
    return `${this.namespace}/channel/${channel}/${encodeURIComponent(key).replace(/\*/g, '%2A')}`
  }
}

/** Whether `state` comes after `than`: a later version of the same epoch, or any state of another epoch. */
function isNewer (state: StateVersion, than: StateVersion): boolean {
  return state.epoch !== than.epoch || state.version > than.version
}

function closedError (): Error {
  return new FST_SVC_CLOSED('no new stream is opened while the app closes.')
}

function toJson (value: unknown, refuse: (reason: string) => Error): string {
  let json: string | undefined
  try {
    json = JSON.stringify(value ?? null)
  } catch (error) {
    throw refuse((error as Error).message)
  }
  if (json === undefined) throw refuse(`a ${typeof value} has no JSON form`)
  return json
}

/** The first id of a stream: one past the client's `Last-Event-ID` when it is a whole number, else 1. */
function firstIdAfter (lastEventId: unknown): number {
  if (typeof lastEventId !== 'string' || !/^\d{1,15}$/.test(lastEventId)) return 1
  return Number(lastEventId) + 1
}

function listOf (names: Iterable<string>): string {
  const all = [...names].map((name) => `"${name}"`)
  return all.length === 0 ? 'none' : all.join(', ')
}

function addTo<K, V> (map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key)
  if (set === undefined) map.set(key, (set = new Set()))
  set.add(value)
}

function removeFrom<K, V> (map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key) as Set<V>
  set.delete(value)
  if (set.size === 0) map.delete(key)
}
