import type { FastifyInstance } from 'fastify'
import { FST_SVC_AFTER_READY, FST_SVC_CLOSED, FST_SVC_NOT_READY } from './errors.js'

/**
 * Where the app stands. `registering` until `ready()` has run the plugin's `onReady`, then `ready` or
 * `failed`; `closing` from `preClose` (streams end, new ones are refused, requests still running go on);
 * `closed` from `onClose` (the server has closed; the broker's connections close).
 */
export type Phase = 'registering' | 'ready' | 'failed' | 'closing' | 'closed'

/**
 * Every refusal that comes from the phase, in one table: a call made too early, too late, or while the
 * app closes. `call` names what was called, as the caller wrote it.
 */
export const REFUSALS = {
  notReady: (call: string): Error => new FST_SVC_NOT_READY(`${call} is available after \`await app.ready()\`.`),
  startFailed: (call: string): Error => new FST_SVC_NOT_READY(`${call} is not available: ready() rejected, and its error says why.`),
  afterReady: (call: string): Error => new FST_SVC_AFTER_READY(`${call} was called after ready(). Register types, events and channels before the app is ready.`),
  afterClose: (call: string): Error => new FST_SVC_CLOSED(`${call} was called after app.close().`),
  /** A stream asked for while the app closes. */
  streamWhileClosing: (): Error => new FST_SVC_CLOSED('no new stream is opened while the app closes.')
} as const

/** What the stages read of the lifecycle: the phase, which only the plugin's own hooks change. */
export interface Phases {
  readonly phase: Phase
  /** `closing` or `closed`: from `preClose` on. */
  readonly closing: boolean
}

/**
 * The app's lifecycle, owned by the plugin: the phase, and what `ready()` built (`Built`). The stages
 * (declarations, the dispatcher, the registry, realtime, the streams, MCP) read it and keep no flag of
 * their own; only the hooks installed here change it. A rule about when something may happen goes here,
 * and its refusal in `REFUSALS`.
 */
export class Lifecycle<Built> implements Phases {
  private current: Phase = 'registering'
  private made: Built | undefined
  private readonly listeners: Array<(built: Built) => void> = []

  /** Installs `preClose` at once: before every other hook of the plugin, so each of them sees the app closing. */
  constructor (fastify: FastifyInstance) {
    fastify.addHook('preClose', (done) => {
      this.current = 'closing'
      done()
    })
  }

  get phase (): Phase {
    return this.current
  }

  get closing (): boolean {
    return this.current === 'closing' || this.current === 'closed'
  }

  /**
   * What `ready()` built, once built: kept when a later step of `ready()` failed (`app.inject()` still
   * answers then) and after close.
   */
  get built (): Built | undefined {
    return this.made
  }

  /** Throws unless declarations may still change: while registering, before `ready()` has built anything. */
  requireOpen (call: string): void {
    if (this.current === 'registering' && this.made === undefined) return
    throw this.made !== undefined || this.current === 'failed' ? REFUSALS.afterReady(call) : REFUSALS.afterClose(call)
  }

  /** What `ready()` built, or the error saying why there is none: not ready yet, or `ready()` failed. */
  requireReady (call: string): Built {
    if (this.made !== undefined) return this.made
    throw this.current === 'failed' ? REFUSALS.startFailed(call) : REFUSALS.notReady(call)
  }

  /** `listener` gets what `ready()` built, once built; a throw rejects `ready()`. Register before `ready()`. */
  onReady (listener: (built: Built) => void): void {
    this.listeners.push(listener)
  }

  /**
   * Installs `onReady`, which runs `start` (handing what it builds to `hand`), and `onClose`. Call it
   * after every other hook of the plugin: `onClose` hooks run last-registered first, so the app counts
   * as closed before the others close what they hold.
   */
  attach (fastify: FastifyInstance, start: (hand: (built: Built) => void) => Promise<void>): void {
    fastify.addHook('onReady', async () => {
      try {
        await start((built) => {
          this.made = built
          for (const listener of this.listeners) listener(built)
        })
        this.current = 'ready'
      } catch (error) {
        this.current = 'failed'
        throw error
      }
    })
    fastify.addHook('onClose', (_instance, done) => {
      this.current = 'closed'
      done()
    })
  }
}
