import { propertiesOf, type Schema } from './schema/schema.js'
import type { ParamPlace } from './collect/sources.js'
import type { Manifest } from './manifest/types.js'

export type { ParamPlace } from './collect/sources.js'

/** How to call one command over its own route: what execute, pipeline and MCP dispatch on. */
export interface CatalogCommand {
  readonly name: string
  /** The route's method, e.g. `GET`. */
  readonly method: string
  /** The route's URL as registered, prefix included, e.g. `/carts/:id/items`. */
  readonly url: string
  /** Where params the command does not declare go: the body for POST, PUT and PATCH, else the query. */
  readonly extraPlace: 'query' | 'body'
  /** The route requires a bearer credential (`svc.auth: 'required'`). */
  readonly auth: boolean
  /** The route's own `bodyLimit`, when it sets one; else the server's applies. */
  readonly bodyLimit?: number
  /** The object schemas the params come from, as the route validates them, path params first. */
  readonly paramSchemas: ReadonlyArray<{ readonly schema: Schema, readonly place: ParamPlace, readonly optional?: ReadonlySet<string> }>
}

/**
 * Where each declared param of a command goes, as a null-prototype map. Computed when a command is first
 * called rather than for every command at `ready()`.
 */
export function placesOf (command: CatalogCommand): Record<string, ParamPlace> {
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
  private readonly byName = new Map<string, CatalogCommand>()
  private parsed: Readonly<Manifest> | undefined

  constructor (
    /** The served body. */
    readonly body: Buffer,
    readonly checksum: string,
    routes: Iterable<CatalogCommand>
  ) {
    for (const route of routes) this.byName.set(route.name, route)
  }

  /** The route of a command of the manifest, or undefined: only commands are reachable by name. */
  command (name: string): CatalogCommand | undefined {
    return this.byName.get(name)
  }

  get manifest (): Readonly<Manifest> {
    this.parsed ??= deepFreeze(JSON.parse(this.body.toString('utf8')) as Manifest)
    return this.parsed
  }
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
