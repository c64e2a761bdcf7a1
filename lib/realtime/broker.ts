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

/** What the message bus and the state store both have, a connection's: whether it is up, and its close. */
interface BrokerConnection {
  /** False while a shared broker cannot be reached; streams that need it are refused meanwhile. */
  readonly available: boolean
  close (): Promise<void>
}

/**
 * Message passing: carries events and channel states to every instance of the service (this one
 * included). In memory for one instance, or through Redis for many.
 */
export interface MessageBus extends BrokerConnection {
  send (message: BrokerMessage): Promise<void>
  /** Resolves once the subscription is in place, so no message sent afterwards is missed. */
  subscribe (topic: string, listener: BrokerListener): Promise<void>
  unsubscribe (topic: string, listener: BrokerListener): void
  /**
   * `listener` runs each time the bus is back after losing its connection, once its subscriptions are
   * in place again: messages sent meanwhile were lost, and a shared store may have lost states too.
   */
  onReconnect (listener: () => void): void
}

/**
 * State storage: the latest state of each channel key, with its version. In memory for one instance, or
 * in Redis for many.
 */
export interface StateStore extends BrokerConnection {
  /** Replaces the state under `key` and returns its new version (1 for the first) and epoch. */
  store (key: string, json: string): Promise<StateVersion>
  /** The latest state under `key`: version 0 and `null` before any publish (or after the store lost it). */
  read (key: string): Promise<StoredState>
  /**
   * `work` (calls that end with a read of this store), or FST_SVC_BROKER_UNAVAILABLE naming `what` once
   * a shared store has not answered within its command limit.
   */
  bounded<T> (work: Promise<T>, what: string): Promise<T>
}

/**
 * A message bus and a state store, which the hubs take apart (events need only the bus): one object may
 * be both, as `MemoryBroker` and `RedisBroker` are, or two. A new broker implements either or both;
 * `Realtime.start` chooses them.
 */
export interface Broker {
  bus: MessageBus
  store: StateStore
}

/** Closes a broker's parts, each once (one object may be both). */
export async function closeBroker ({ bus, store }: Broker): Promise<void> {
  await Promise.all([...new Set<BrokerConnection>([bus, store])].map(async (part) => { await part.close() }))
}

/** The state of a key nobody published, or whose store lost it. */
export const INITIAL_STATE: Readonly<StoredState> = Object.freeze({ version: 0, epoch: '', json: 'null' })

/** One instance: an in-process mqemitter, and the states in a Map. */
export class MemoryBroker implements MessageBus, StateStore {
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
