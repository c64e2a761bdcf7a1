import type { CommandRoute } from './assemble/command-route.js'
import { propertiesOf, type Schema } from './schema/schema.js'
import type { ParamPlace } from './collect/sources.js'
import type { Manifest } from './manifest/types.js'

export type { ParamPlace } from './collect/sources.js'

/**
 * Where each declared param of a command goes, as a null-prototype map. Computed when a command is first
 * called rather than for every command at `ready()`.
 */
export function placesOf (command: CommandRoute): Record<string, ParamPlace> {
  const places: Record<string, ParamPlace> = Object.create(null)
  for (const { schema, place } of command.paramSchemas) {
    for (const name of Object.keys(propertiesOf(schema) as Schema)) places[name] = place
  }
  return places
}

/**
 * What the plugin knows once `ready()` has built the manifest: the served bytes and checksum, the manifest
 * itself (read back from those bytes on first use, so it is exactly what clients receive and costs nothing
 * at start-up when nobody reads it), and each command's route.
 */
export class Catalog {
  /** Each command's route, by command name: what the invocation endpoints dispatch on. */
  private readonly byName = new Map<string, CommandRoute>()
  private parsed: Readonly<Manifest> | undefined
  private parsedPublic: Readonly<Manifest> | undefined

  constructor (
    /** The served body. */
    readonly body: Buffer,
    readonly checksum: string,
    routes: Iterable<CommandRoute>,
    /** The public view's body (no hidden command): the complete one when there is none. */
    readonly publicBody: Buffer,
    /**
     * The hidden commands (`svc.auth: 'hidden'`, `hiddenCommands`), by name in the manifest's order, each with
     * the scopes a credential must grant for it to exist for its caller. Empty in most apps: then every
     * caller sees all.
     */
    readonly hidden: ReadonlyMap<string, readonly string[]>
  ) {
    for (const route of routes) this.byName.set(route.name, route)
  }

  /** The route of a command of the manifest, or undefined: only commands are reachable by name. */
  command (name: string): CommandRoute | undefined {
    return this.byName.get(name)
  }

  /** The complete manifest: every command, the hidden ones included (`app.svc.manifest`). */
  get manifest (): Readonly<Manifest> {
    this.parsed ??= deepFreeze(JSON.parse(this.body.toString('utf8')) as Manifest)
    return this.parsed
  }

  /**
   * The public manifest: what a caller without a credential is served, every command but the hidden ones.
   * What a document for everyone (llms.txt, an API catalog, OAuth metadata) is made from.
   */
  get publicManifest (): Readonly<Manifest> {
    if (this.publicBody === this.body) return this.manifest
    this.parsedPublic ??= deepFreeze(JSON.parse(this.publicBody.toString('utf8')) as Manifest)
    return this.parsedPublic
  }
}

/** The hidden commands of `routes` (`svc.auth: 'hidden'`), each with the scopes it needs. */
export function hiddenCommands (routes: Iterable<CommandRoute>): Map<string, readonly string[]> {
  const hidden = new Map<string, readonly string[]>()
  for (const route of routes) if (route.hidden !== undefined) hidden.set(route.name, route.hidden)
  return hidden
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
