import type { MQEmitter } from 'mqemitter'

/** What travels between instances: an event or a channel state. `topic` decides who listens. */
export interface BrokerMessage {
  topic: string
  [field: string]: unknown
}

/** mqemitter's listener shape: `done` must be called once the message is handled. */
export type BrokerListener = (message: BrokerMessage, done: () => void) => void

/**
 * Where a state stands. `epoch` names the life of its key's store: it changes when the store starts
 * again without the key (Redis restarted empty, the key flushed or evicted), and versions then start
 * again at 1. Versions compare only within one epoch.
 */
export interface StateVersion {
  version: number
  epoch: string
}

/** The latest state of one channel key. `json` is the state serialised once, by the publisher. */
export interface StoredState extends StateVersion {
  json: string
}

/**
 * Carries events and channel states to every instance of the service (this one included) and keeps the
 * latest state of each channel key. In memory for one instance, or through Redis for many.
 */
export interface Broker {
  /** False while a shared broker cannot be reached; streams that need it are refused meanwhile. */
  readonly available: boolean
  send (message: BrokerMessage): Promise<void>
  /** Resolves once the subscription is in place, so no message sent afterwards is missed. */
  subscribe (topic: string, listener: BrokerListener): Promise<void>
  unsubscribe (topic: string, listener: BrokerListener): void
  /** Replaces the state under `key` and returns its new version (1 for the first) and epoch. */
  store (key: string, json: string): Promise<StateVersion>
  /** The latest state under `key`: version 0 and `null` before any publish (or after the store lost it). */
  read (key: string): Promise<StoredState>
  /**
   * `work` (several broker calls in a row), or FST_SVC_BROKER_UNAVAILABLE naming `what` once a shared
   * broker has not answered within its command limit.
   */
  bounded<T> (work: Promise<T>, what: string): Promise<T>
  /**
   * `listener` runs each time the broker is back after losing its connection, once its subscriptions are
   * in place again: messages sent meanwhile were lost, and the stored states may have been too.
   */
  onReconnect (listener: () => void): void
  close (): Promise<void>
}

/** The state of a key nobody published, or whose store lost it. */
export const INITIAL_STATE: Readonly<StoredState> = Object.freeze({ version: 0, epoch: '', json: 'null' })

/** One instance: an in-process mqemitter, and the states in a Map. */
export class MemoryBroker implements Broker {
  readonly available = true
  private readonly states = new Map<string, StoredState>()

  private constructor (private readonly emitter: MQEmitter) {}

  /** mqemitter is loaded here, at `ready()`, not when the plugin is imported. */
  static async create (): Promise<MemoryBroker> {
    const { default: mqemitter } = await import('mqemitter')
    return new MemoryBroker(mqemitter())
  }

  /** Delivery is synchronous; mqemitter fails only once closed, and the hub sends nothing after close. */
  send (message: BrokerMessage): Promise<void> {
    return new Promise((resolve) => { this.emitter.emit(message, () => resolve()) })
  }

  subscribe (topic: string, listener: BrokerListener): Promise<void> {
    return new Promise((resolve) => { this.emitter.on(topic, listener, resolve) })
  }

  unsubscribe (topic: string, listener: BrokerListener): void {
    this.emitter.removeListener(topic, listener)
  }

  /** One epoch, `''`: the states live as long as the process, so they are never lost under a watcher. */
  async store (key: string, json: string): Promise<StateVersion> {
    const version = (this.states.get(key)?.version ?? 0) + 1
    this.states.set(key, { version, epoch: '', json })
    return { version, epoch: '' }
  }

  async read (key: string): Promise<StoredState> {
    return this.states.get(key) ?? INITIAL_STATE
  }

  /** Nothing to wait for: the in-process broker answers at once. */
  bounded<T> (work: Promise<T>): Promise<T> {
    return work
  }

  /** Never called: an in-process emitter has no connection to lose. */
  onReconnect (): void {}

  close (): Promise<void> {
    return new Promise((resolve) => { this.emitter.close(resolve) })
  }
}
