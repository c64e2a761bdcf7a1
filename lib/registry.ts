import {
  FST_SVC_AFTER_READY, FST_SVC_DUPLICATE_NAME, FST_SVC_INVALID_OPTION, FST_SVC_LAYOUT_FIELD, FST_SVC_NOT_READY, FST_SVC_UNMAPPABLE_SCHEMA
} from './errors.js'
import { assertDescription, assertName } from './names.js'
import { isPlainObject } from './options.js'
import { isObjectSchema, type Schema, type TypeNames } from './schema-map.js'
import type { JsonSchema, Manifest, SvcChannelOptions, SvcEventOptions, SvcLayout, SvcRegistry } from './types.js'

export interface EventEntry { description: string, data?: Schema }
export interface ChannelEntry { description: string }

/**
 * Types, events and channels declared through the options or `app.svc.*`, and, once built, the manifest.
 * Definitions are kept as given: schemas are read later, when the manifest is built.
 */
export class Registry implements TypeNames {
  readonly types = new Map<string, Schema>()
  readonly events = new Map<string, EventEntry>()
  readonly channels = new Map<string, ChannelEntry>()
  private readonly idToName = new Map<string, string>()
  private served: { body: Buffer, checksum: string } | undefined
  private manifest: Readonly<Manifest> | undefined

  constructor (
    private readonly layout: SvcLayout,
    /** Called for each new type, so the app can validate `$ref`s to it. */
    private readonly onType: (name: string, schema: Schema) => void
  ) {}

  has (name: string): boolean {
    return this.types.has(name)
  }

  nameOfId (id: string): string | undefined {
    return this.idToName.get(id) ?? (this.types.has(id) ? id : undefined)
  }

  addType (name: string, schema: JsonSchema): void {
    this.assertOpen(`app.svc.type("${name}")`)
    assertName('type', name, 'types')
    if (!isPlainObject(schema)) throw new FST_SVC_INVALID_OPTION(`type "${name}" must be a JSON Schema object.`)
    this.assertNew(this.types, 'type', name)
    this.types.set(name, schema)
    this.onType(name, schema)
    if (typeof schema.$id === 'string') this.idToName.set(schema.$id, name)
  }

  addEvent (name: string, options: SvcEventOptions): void {
    this.assertOpen(`app.svc.event("${name}")`)
    assertName('event', name, 'events')
    if (!isPlainObject(options)) throw new FST_SVC_INVALID_OPTION(`event "${name}" must be an object { description, data? }.`)
    assertDescription(options.description, `event "${name}"`)
    if (options.data !== undefined && !isPlainObject(options.data)) {
      throw new FST_SVC_INVALID_OPTION(`event "${name}": "data" must be an object schema.`)
    }
    if (options.data !== undefined && !isObjectSchema(options.data)) {
      throw new FST_SVC_UNMAPPABLE_SCHEMA(`event "${name}": "data" must be an object schema (each property is a payload field), for example Type.Object({ items: Type.Array(Type.String()) }).`)
    }
    this.assertNew(this.events, 'event', name)
    this.events.set(name, { description: options.description, data: options.data as Schema | undefined })
  }

  addChannel (name: string, options: SvcChannelOptions): void {
    this.assertOpen(`app.svc.channel("${name}")`)
    if (this.layout !== '0.5.0') {
      throw new FST_SVC_LAYOUT_FIELD(`channel "${name}": channels exist only in layout "0.5.0". Set svc: '0.5.0' or remove the channel.`)
    }
    assertName('channel', name, 'channels')
    if (!isPlainObject(options)) throw new FST_SVC_INVALID_OPTION(`channel "${name}" must be an object { description }.`)
    assertDescription(options.description, `channel "${name}"`)
    this.assertNew(this.channels, 'channel', name)
    this.channels.set(name, { description: options.description })
  }

  /**
   * Called once the manifest is built and serialised: from now on it is readable and the registry is closed.
   * Only the served bytes are kept; `app.svc.manifest` is read back from them when first asked for, so it
   * is exactly what clients receive and costs nothing at start-up when nobody reads it.
   */
  seal (served: { body: Buffer, checksum: string }): void {
    this.served = served
  }

  get sealed (): boolean {
    return this.served !== undefined
  }

  /** The `app.svc` decorator. */
  api (): SvcRegistry {
    const registry = this
    return {
      type: (name, schema) => registry.addType(name, schema),
      event: (name, options) => registry.addEvent(name, options),
      channel: (name, options) => registry.addChannel(name, options),
      get manifest () { return registry.readManifest() },
      get checksum () { return registry.read().checksum }
    }
  }

  private read (): { body: Buffer, checksum: string } {
    if (this.served === undefined) {
      throw new FST_SVC_NOT_READY('app.svc.manifest and app.svc.checksum are available after `await app.ready()`.')
    }
    return this.served
  }

  private readManifest (): Readonly<Manifest> {
    this.manifest ??= deepFreeze(JSON.parse(this.read().body.toString('utf8')) as Manifest)
    return this.manifest
  }

  private assertOpen (call: string): void {
    if (this.sealed) throw new FST_SVC_AFTER_READY(`${call} was called after ready(). Register types, events and channels before the app is ready.`)
  }

  private assertNew (map: Map<string, unknown>, kind: string, name: string): void {
    if (map.has(name)) throw new FST_SVC_DUPLICATE_NAME(`${kind} "${name}" is registered twice. Give each ${kind} its own name.`)
  }
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
