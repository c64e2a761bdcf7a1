import {
  FST_SVC_AFTER_READY, FST_SVC_DUPLICATE_NAME, FST_SVC_INVALID_OPTION, FST_SVC_LAYOUT_FIELD, FST_SVC_UNMAPPABLE_SCHEMA
} from '../errors.js'
import { isObjectSchema, type Schema, type TypeNames } from '../build/type-map.js'
import type { SvcLayout } from '../manifest/types.js'
import { isPlainObject, type Config, type JsonSchema, type SvcChannelAuthorize, type SvcChannelOptions, type SvcEventOptions } from '../options.js'
import { assertDescription, assertName } from './checks.js'

export interface EventEntry { description: string, data?: Schema }
export interface ChannelEntry { description: string, authorize?: SvcChannelAuthorize }

/**
 * Types, events and channels declared through the options or `app.svc.*`, until the manifest is built.
 * Definitions are kept as given: schemas are read later, when the manifest is built.
 */
export class Declarations implements TypeNames {
  readonly types = new Map<string, Schema>()
  readonly events = new Map<string, EventEntry>()
  readonly channels = new Map<string, ChannelEntry>()
  private readonly idToName = new Map<string, string>()
  private readonly layout: SvcLayout
  private closed = false

  constructor (
    config: Config,
    /** Called for each new type, so the app can validate `$ref`s to it. */
    private readonly onType: (name: string, schema: Schema) => void
  ) {
    this.layout = config.layout
    for (const [name, schema] of Object.entries(config.types)) this.addType(name, schema as JsonSchema)
    for (const [name, event] of Object.entries(config.events)) this.addEvent(name, event as SvcEventOptions)
    for (const [name, channel] of Object.entries(config.channels)) this.addChannel(name, channel as SvcChannelOptions)
  }

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
    if (options.authorize !== undefined && typeof options.authorize !== 'function') {
      throw new FST_SVC_INVALID_OPTION(`channel "${name}": "authorize" must be a function (credential, key, request) => boolean.`)
    }
    this.assertNew(this.channels, 'channel', name)
    const entry: ChannelEntry = { description: options.description }
    if (options.authorize !== undefined) entry.authorize = options.authorize
    this.channels.set(name, entry)
  }

  /** Called once the manifest is built: from now on nothing can be declared. */
  close (): void {
    this.closed = true
  }

  private assertOpen (call: string): void {
    if (this.closed) throw new FST_SVC_AFTER_READY(`${call} was called after ready(). Register types, events and channels before the app is ready.`)
  }

  private assertNew (map: Map<string, unknown>, kind: string, name: string): void {
    if (map.has(name)) throw new FST_SVC_DUPLICATE_NAME(`${kind} "${name}" is registered twice. Give each ${kind} its own name.`)
  }
}
