import { REFUSALS, type Phases } from '../lifecycle.js'
import type { Realtime, RealtimeDependencies } from './realtime.js'

/**
 * The app's realtime hub, started when something needs it: by `ready()` when the app declares an event or
 * a channel, else by the first events stream (of a service without events, which never carries one). An
 * app with neither loads no realtime code and no mqemitter, and connects to no broker. Once the app has
 * begun to close (its lifecycle says so), none is started; one that finishes starting then refuses streams.
 */
export class RealtimeOnDemand {
  private started: Realtime | undefined
  private starting: Promise<Realtime> | undefined

  /** `dependencies` is read when the hub starts, so after `ready()` has made the declarations final. */
  constructor (private readonly lifecycle: Phases, private readonly dependencies: () => Omit<RealtimeDependencies, 'lifecycle'>) {}

  /** The hub, once started. */
  get current (): Realtime | undefined {
    return this.started
  }

  /** Loads and starts the hub, once: every call gets the same one. Once the app closes, none is started. */
  start (): Promise<Realtime> {
    if (this.lifecycle.closing && this.starting === undefined) return Promise.reject(REFUSALS.streamWhileClosing())
    this.starting ??= import('./realtime.js').then(async ({ Realtime }) => {
      this.started = await Realtime.start({ ...this.dependencies(), lifecycle: this.lifecycle })
      return this.started
    })
    return this.starting
  }

  /** `preClose`: ends every stream, so the server can close. */
  endStreams (): void {
    this.started?.endStreams()
  }

  /** `onClose`: the broker's connections, once a start under way has settled (a failed one holds none). */
  async close (): Promise<void> {
    const realtime = await this.starting?.catch(() => undefined)
    await realtime?.close()
  }
}
