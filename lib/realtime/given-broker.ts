import { FST_SVC_BROKER_UNAVAILABLE } from '../errors.js'
import type { SvcBroker } from '../option-types.js'
import { withinTime } from '../util/within-time.js'
import type { BrokerListener, BrokerMessage, MessageBus, StateStore, StateVersion, StoredState } from './broker.js'

const TOO_LATE = 'realtime.broker did not answer within %d ms (realtime.commandTimeout)'

/**
 * A broker the user passed in (`realtime.broker`), as the hubs use one: each answer it owes a caller
 * bounded by `commandTimeout`, as Redis's are. It is the user's: closing the app unsubscribes what the
 * plugin subscribed and leaves the broker open, for the other apps that share it.
 */
export class GivenBroker implements MessageBus, StateStore {
  private readonly subscribed = new Set<{ topic: string, listener: BrokerListener }>()
  private closed = false

  constructor (private readonly broker: SvcBroker, private readonly commandTimeout: number) {}

  get available (): boolean {
    return this.broker.available !== false
  }

  async send (message: BrokerMessage): Promise<void> {
    await this.answer(this.broker.send(message), 'sending a message')
  }

  async subscribe (topic: string, listener: BrokerListener): Promise<void> {
    const subscribing = Promise.resolve(this.broker.subscribe(topic, listener))
    try {
      await this.answer(subscribing, `subscribing to ${topic}`)
    } catch (error) {
      // Too late for its caller: once the broker completes it after all, it is taken back.
      subscribing.then(() => { this.broker.unsubscribe(topic, listener) }, () => {})
      // Coded here: the events hub subscribes as ready() runs, which rejects only with coded errors.
      throw new FST_SVC_BROKER_UNAVAILABLE((error as Error).message, { cause: error })
    }
    this.subscribed.add({ topic, listener })
  }

  unsubscribe (topic: string, listener: BrokerListener): void {
    for (const entry of this.subscribed) {
      if (entry.topic === topic && entry.listener === listener) this.subscribed.delete(entry)
    }
    this.broker.unsubscribe(topic, listener)
  }

  async store (key: string, json: string): Promise<StateVersion> {
    const { version, epoch } = await this.answer(this.broker.store(key, json), 'storing a state')
    return { version, epoch }
  }

  async read (key: string): Promise<StoredState> {
    const { version, epoch, json } = await this.answer(this.broker.read(key), 'reading a state')
    return { version, epoch, json }
  }

  /** Several calls in a row, bounded together; the one coded error a caller of the store receives. */
  bounded<T> (work: Promise<T>, what: string): Promise<T> {
    return withinTime(work, this.commandTimeout, TOO_LATE)
      .catch((error: Error) => { throw error instanceof FST_SVC_BROKER_UNAVAILABLE ? error : new FST_SVC_BROKER_UNAVAILABLE(`${what}: ${error.message}`, { cause: error }) })
  }

  onReconnect (listener: () => void): void {
    // The broker outlives the app: a closed app does nothing on its reconnections.
    this.broker.onReconnect?.(() => { if (!this.closed) listener() })
  }

  async close (): Promise<void> {
    this.closed = true
    for (const { topic, listener } of this.subscribed) this.broker.unsubscribe(topic, listener)
    this.subscribed.clear()
  }

  /**
   * One call's answer within `commandTimeout`, or an error naming the call: the hubs turn it into their
   * coded error (as they do Redis's), so its message is said once.
   */
  private answer<T> (work: Promise<T>, what: string): Promise<T> {
    return withinTime(Promise.resolve(work), this.commandTimeout, TOO_LATE)
      .catch((error: Error) => { throw new Error(`${what}: ${error.message}`, { cause: error }) })
  }
}
