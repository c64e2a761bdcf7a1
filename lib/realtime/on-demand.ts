import type { Realtime, RealtimeDependencies } from './realtime.js'
import { closedError } from './refusals.js'

/**
 * The app's realtime hub, started when something needs it: by `ready()` when the app declares an event or
 * a channel, else by the first events stream (of a service without events, which never carries one). An
 * app with neither loads no realtime code and no mqemitter, and connects to no broker.
 */
export class RealtimeOnDemand {
  private started: Realtime | undefined
  private starting: Promise<Realtime> | undefined
  /** Set by the app's `preClose`: a hub that finishes starting after it opens no stream. */
  private ending = false
  private onCloseRan = false

  /** Read when the hub starts, so after `ready()` has made the declarations final. */
  constructor (private readonly dependencies: () => RealtimeDependencies) {}

  /** The hub, once started. */
  get current (): Realtime | undefined {
    return this.started
  }

  /** Whether the app's `onClose` has run. */
  get closed (): boolean {
    return this.onCloseRan
  }

  /** Loads and starts the hub, once: every call gets the same one. Once the app closes, none is started. */
  start (): Promise<Realtime> {
    if (this.ending && this.starting === undefined) return Promise.reject(closedError())
    this.starting ??= import('./realtime.js').then(async ({ Realtime }) => {
      const realtime = await Realtime.start(this.dependencies())
      if (this.ending) realtime.endStreams()
      this.started = realtime
      return realtime
    })
    return this.starting
  }

  /** `preClose`: ends every stream, so the server can close, and refuses new ones. */
  endStreams (): void {
    this.ending = true
    this.started?.endStreams()
  }

  /** `onClose`: the broker's connections, once a start under way has settled (a failed one holds none). */
  async close (): Promise<void> {
    this.ending = true
    this.onCloseRan = true
    const realtime = await this.starting?.catch(() => undefined)
    await realtime?.close()
  }
}
