import type { Catalog } from './catalog.js'
import type { Declarations } from './collect/declarations.js'
import { REFUSALS, type Lifecycle } from './lifecycle.js'
import type { Manifest } from './manifest/types.js'
import type { JsonSchema, SvcChannelOptions, SvcEventOptions } from './option-types.js'
import type { RealtimeOnDemand } from './realtime/on-demand.js'
import type { EmitOptions, Realtime } from './realtime/realtime.js'
import { unknownChannel, unknownEvent } from './realtime/refusals.js'

/** The `app.svc` decorator. */
export interface SvcRegistry {
  /** Registers a reusable type. Before `ready()` only. */
  type (name: string, schema: JsonSchema): void
  /** Registers an event. Before `ready()` only. */
  event (name: string, options: SvcEventOptions): void
  /** Registers a live channel (layout `0.5.0`). Before `ready()` only. */
  channel (name: string, options: SvcChannelOptions): void
  /** The generated manifest, frozen: every command, the hidden ones (`svc.auth: 'hidden'`) included. Throws before `ready()`. */
  readonly manifest: Readonly<Manifest>
  /**
   * The public manifest, frozen: what a caller without a credential is served, every command but the hidden
   * ones (the same object as `manifest` when none is). Throws before `ready()`.
   */
  readonly publicManifest: Readonly<Manifest>
  /**
   * The complete manifest's checksum (`manifest.checksum`), over every command, the hidden ones included. It
   * is the ETag only when no command is hidden; else the public ETag is `publicManifest.checksum`, and each
   * credential's view has its own. Throws before `ready()`.
   */
  readonly checksum: string
  /**
   * Sends a declared event to its subscribers on every instance; with `to`, only to the subscribers whose
   * subject is `to`. After `ready()`. Throws a coded error for an undeclared event or a payload that does
   * not satisfy its data schema, and then delivers nothing. Delivery is asynchronous; a broker failure is
   * logged, never thrown.
   */
  emit (event: string, data?: unknown, options?: EmitOptions): void
  /**
   * Replaces the state of one key of a channel (layout 0.5.0) and sends it to its watchers; resolves to
   * the new version (1 after the first publish). After `ready()`. Mistakes in the call are thrown at once;
   * the promise rejects only when the broker fails.
   */
  publish (channel: string, key: string, state: unknown): Promise<number>
}

/**
 * The registry over the declarations (open until `ready()`), the catalog and the realtime hub, as the
 * lifecycle allows: the manifest once `ready()` has built it, emit and publish once the hub has started
 * and until the app has closed; else the lifecycle's refusal, never a partial manifest or a lost event.
 */
export function svcRegistry (declarations: Declarations, lifecycle: Pick<Lifecycle<{ catalog: Catalog }>, 'phase' | 'built' | 'requireReady'>, realtime: RealtimeOnDemand): SvcRegistry {
  /**
   * The hub. An app that declares no event and no channel has none unless a stream started it: once
   * built, each of its calls names an undeclared event or channel, until the app has closed.
   */
  const started = (call: string, undeclared: () => Error): Realtime => {
    if (lifecycle.phase === 'closed') throw REFUSALS.afterClose(call)
    const current = realtime.current
    if (current !== undefined) return current
    if (lifecycle.built !== undefined && !declarations.declaresRealtime) throw undeclared()
    throw REFUSALS.notReady(call)
  }
  return {
    type: (name, schema) => declarations.addType(name, schema),
    event: (name, options) => declarations.addEvent(name, options),
    channel: (name, options) => declarations.addChannel(name, options),
    get manifest () { return lifecycle.requireReady('app.svc.manifest').catalog.manifest },
    get publicManifest () { return lifecycle.requireReady('app.svc.publicManifest').catalog.publicManifest },
    get checksum () { return lifecycle.requireReady('app.svc.checksum').catalog.checksum },
    emit: (event, data, options) => started('app.svc.emit()', () => unknownEvent(event, [])).emit(event, data, options),
    publish: (channel, key, state) => started('app.svc.publish()', () => unknownChannel(channel, [])).publish(channel, key, state)
  }
}
