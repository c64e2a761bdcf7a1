import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_BROKER_UNAVAILABLE, FST_SVC_INVALID_PUBLISH } from '../errors.js'
import { isChannelKey } from './addressing.js'
import type { BrokerListener, BrokerMessage, MessageBus, StateStore, StateVersion, StoredState } from './broker.js'
import type { OpenStreams } from './open-streams.js'
import { STATE_FRAME_OVERHEAD, stateFrame, type SseStream } from './stream.js'
import { toJson, type Topics } from './topics.js'
import { unknownChannel } from './refusals.js'

/** A channel state on its way; its topic names the channel and the key. */
interface StateMessage extends BrokerMessage {
  version: number
  epoch: string
  json: string
}

/** Where a watcher's states go: `frame` builds the state's SSE frame, once for all the watchers that need it. */
type StateSink = (frame: () => string) => void

/**
 * One watcher of a channel key. Until it begins, states that arrive are kept (the newest only): one
 * published between the subscription and the read of the stored state must not be lost. Once begun,
 * only a state newer than the last one seen goes to its sink, so within an epoch versions only grow,
 * even when two instances' publishes cross on the way. A state of another epoch is always newer: its
 * store started again (Redis restarted empty), and its versions with it.
 */
class ChannelWatcher {
  private sink: StateSink | undefined
  /** The last state seen; only its place is kept, not its JSON. */
  private last: StateVersion = { version: -1, epoch: '' }
  private pending: StoredState | undefined

  offer (state: StoredState, frame: () => string): void {
    if (this.sink === undefined) {
      if (this.pending === undefined || isNewer(state, this.pending)) this.pending = state
    } else if (isNewer(state, this.last)) {
      this.last = { version: state.version, epoch: state.epoch }
      this.sink(frame)
    }
  }

  /**
   * Begins with the stored state, then any newer state that arrived meanwhile. `sendStored`: whether the
   * stored state goes to the sink too (a stream's first frame), or only counts as seen (a follower wants
   * the publishes that come after).
   */
  begin (sink: StateSink, stored: StoredState, sendStored: boolean): void {
    this.sink = sink
    const pending = this.pending
    this.pending = undefined
    if (sendStored) this.offer(stored, () => stateFrame(stored.version, stored.json))
    else this.last = { version: stored.version, epoch: stored.epoch }
    if (pending !== undefined) this.offer(pending, () => stateFrame(pending.version, pending.json))
  }
}

/** The local watchers of one channel key, and the broker subscription they share. */
interface WatchedTopic {
  watchers: Set<ChannelWatcher>
  listener: BrokerListener
  subscribed: Promise<void>
}

export interface ChannelHubSetup {
  /** Carries each new state to the instances that watch its key. */
  bus: MessageBus
  /** Keeps each key's latest state and its version. */
  store: StateStore
  streams: OpenStreams
  topics: Topics
  /** The declared channels, by name. */
  channels: ReadonlyMap<string, unknown>
  log: FastifyBaseLogger
}

/**
 * Publish and the channel streams (layout 0.5.0). The store keeps each key's latest state and the bus
 * sends each new one to the instances that watch the key; here it goes to the key's watchers that have
 * not had it.
 */
export class ChannelHub {
  private readonly topics = new Map<string, WatchedTopic>()

  constructor (private readonly setup: ChannelHubSetup) {
    setup.bus.onReconnect(() => this.resync())
  }

  /**
   * Replaces the state of one channel key and sends it to its watchers on every instance. Mistakes in
   * the call are thrown at once, like emit()'s; the promise rejects only when the broker fails, with
   * FST_SVC_BROKER_UNAVAILABLE (Redis away, or silent past `realtime.commandTimeout`).
   */
  publish (channel: string, key: string, state: unknown): Promise<number> {
    const { bus, store, streams, channels } = this.setup
    if (!channels.has(channel)) {
      throw unknownChannel(channel, channels.keys())
    }
    if (!isChannelKey(key)) throw new FST_SVC_INVALID_PUBLISH(`app.svc.publish("${channel}", key): the key must be a non-empty string of well-formed Unicode; got ${typeof key === 'string' ? 'a string that is not' : typeof key}.`)
    const json = toJson(state, (reason) => new FST_SVC_INVALID_PUBLISH(`channel "${channel}": the state is not JSON (${reason}).`))
    const tooLarge = streams.tooLarge(`app.svc.publish("${channel}")`, 'the state\'s frame', STATE_FRAME_OVERHEAD, json, 'Nothing was stored or delivered')
    if (tooLarge !== undefined) throw tooLarge
    const topic = this.setup.topics.channel(channel, key)
    return store.store(topic, json).then(async ({ version, epoch }) => {
      const message: StateMessage = { topic, version, epoch, json }
      await bus.send(message)
      return version
    }).catch((error: Error) => {
      throw new FST_SVC_BROKER_UNAVAILABLE(`app.svc.publish("${channel}"): ${error.message}`, { cause: error })
    })
  }

  /** The latest state of one channel key: version 0 and state null before any publish, as a stream's first frame. */
  async read (channel: string, key: string): Promise<{ version: number, state: unknown }> {
    this.assertAvailable()
    const { version, json } = await this.readStored(this.setup.topics.channel(channel, key), channel)
    return { version, state: JSON.parse(json) }
  }

  /**
   * Calls `onPublish` for each state of one channel key published from now on (on any instance), once
   * subscribed; resolves to the function that ends it. Followers share the key's one broker
   * subscription with its streams.
   */
  async follow (channel: string, key: string, onPublish: () => void): Promise<() => void> {
    const topic = this.setup.topics.channel(channel, key)
    const watcher = new ChannelWatcher()
    watcher.begin(() => onPublish(), await this.watchStored(topic, watcher, channel), false)
    return () => this.unwatch(topic, watcher)
  }

  /** Opens a channel stream: the latest state first, then every newer one. */
  async open (request: FastifyRequest, reply: FastifyReply, channel: string, key: string): Promise<void> {
    const { streams } = this.setup
    const topic = this.setup.topics.channel(channel, key)
    const watcher = new ChannelWatcher()
    const stored = await this.watchStored(topic, watcher, channel)
    let stream: SseStream
    try {
      // Refused when the app started closing during the awaits: a stream opened now would hold it open.
      stream = streams.start(request, reply, () => this.unwatch(topic, watcher))
    } catch (error) {
      this.unwatch(topic, watcher)
      throw error
    }
    if (!stream.open) {
      this.unwatch(topic, watcher)
      return
    }
    watcher.begin((frame) => stream.write(frame()), stored, true)
  }

  /**
   * Adds `watcher` to the key's watchers, then reads the stored state: subscribed before the state is
   * read, so a publish in between is caught by the watcher, not lost. A failed read removes it again.
   * Refused at once while a shared broker is down; both steps together are bounded by the broker's
   * command limit, so a Redis that stops answering gets the stream a 503 within it.
   */
  private async watchStored (topic: string, watcher: ChannelWatcher, channel: string): Promise<StoredState> {
    this.assertAvailable()
    const subscribedThenRead = this.watch(topic, watcher).then(() => this.readStored(topic, channel))
    try {
      return await this.setup.store.bounded(subscribedThenRead, `channel "${channel}" cannot be watched now; retry later`)
    } catch (error) {
      this.unwatch(topic, watcher)
      throw error
    }
  }

  /** Refuses at once while a shared broker is down: a stream, a follow or a read would wait for it. */
  private assertAvailable (): void {
    if (!this.setup.bus.available || !this.setup.store.available) throw new FST_SVC_BROKER_UNAVAILABLE('channel streams need Redis, which cannot be reached now; retry later.')
  }

  /** The stored state of a key, or the coded error saying why it cannot be read. */
  private async readStored (topic: string, channel: string): Promise<StoredState> {
    try {
      return await this.setup.store.read(topic)
    } catch (error) {
      throw new FST_SVC_BROKER_UNAVAILABLE(`the state of channel "${channel}" cannot be read: ${(error as Error).message}`)
    }
  }

  private watch (topic: string, watcher: ChannelWatcher): Promise<void> {
    let watched = this.topics.get(topic)
    if (watched === undefined) {
      // One listener per subscription: mqemitter removes listeners later, by identity, so a listener
      // shared with a newer subscription of the same topic would be removed with the old one.
      const listener: BrokerListener = (message, done) => {
        const { version, epoch, json } = message as StateMessage
        this.deliver(topic, watched as WatchedTopic, { version, epoch, json })
        done()
      }
      watched = { watchers: new Set(), listener, subscribed: this.setup.bus.subscribe(topic, listener) }
      this.topics.set(topic, watched)
    }
    watched.watchers.add(watcher)
    return watched.subscribed
  }

  /** Writes `state` to the watchers of `topic` that have not had it; the frame is built once, if needed. */
  private deliver (topic: string, watched: WatchedTopic, state: StoredState): void {
    if (this.setup.streams.refusedOnArrival(STATE_FRAME_OVERHEAD, state.json, { topic })) return
    let frame: string | undefined
    for (const each of watched.watchers) each.offer(state, () => (frame ??= stateFrame(state.version, state.json)))
  }

  /**
   * After the broker was disconnected: the stored state of each watched key goes to its watchers, so a
   * publish made while this instance was not subscribed is not lost, and a state the store lost (Redis
   * restarted empty) is not shown as current. A watcher that has it already gets nothing.
   */
  private resync (): void {
    for (const [topic, watched] of this.topics) {
      this.setup.store.read(topic).then((state) => this.deliver(topic, watched, state), (error: Error) => {
        this.setup.log.warn({ err: error, topic }, 'fastify-svc-manifest: the state of a watched channel key could not be read after the realtime broker came back; its watchers get its next publish')
      })
    }
  }

  private unwatch (topic: string, watcher: ChannelWatcher): void {
    const watched = this.topics.get(topic) as WatchedTopic
    watched.watchers.delete(watcher)
    if (watched.watchers.size > 0) return
    this.topics.delete(topic)
    this.setup.bus.unsubscribe(topic, watched.listener)
  }
}

/** Whether `state` comes after `than`: a later version of the same epoch, or any state of another epoch. */
function isNewer (state: StateVersion, than: StateVersion): boolean {
  return state.epoch !== than.epoch || state.version > than.version
}
