import type { FastifyInstance } from 'fastify'
import { describeValue } from '../util/describe.js'
import {
  FST_SVC_DUPLICATE_NAME, FST_SVC_INVALID_NAME, FST_SVC_INVALID_OPTION,
  FST_SVC_UNMAPPABLE_SCHEMA
} from '../errors.js'
import { isObjectSchema, type Schema, type TypeNames } from '../schema/schema.js'
import type { Lifecycle } from '../lifecycle.js'
import type { SvcLayout } from '../manifest/types.js'
import type { JsonSchema, SvcChannelAuthorize, SvcChannelOptions, SvcEventOptions } from '../option-types.js'
import { requireAboutAndChannels, type Config } from '../options.js'
import { isPlainObject } from '../util/objects.js'
import { assertDescription, assertName } from './checks.js'
import { inspectSchema } from '../schema/check.js'
import { READER_BUILT_IN_TYPES } from '../manifest/keywords.js'

export interface EventEntry { description: string, data?: Schema }
export interface ChannelEntry { description: string, authorize?: SvcChannelAuthorize }

/**
 * Names a type cannot have: the manifest's own type names (`any` among them, and `integer`, which maps to one), and the
 * names JavaScript's `typeof` gives values JSON cannot hold, which a manifest never serves as types.
 */
const RESERVED_TYPE_NAMES = new Set([...READER_BUILT_IN_TYPES, 'undefined', 'bigint', 'symbol', 'function'])
/**
 * Names a type cannot have because it is shared with Fastify under its name, and Fastify's shared schemas
 * (and Ajv's) are looked up in plain objects, where these names are taken by `Object.prototype`: a `$ref`
 * to such a type would resolve to something else, and validate nothing.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype))

/**
 * Types, events and channels declared through the options or `app.svc.*`, until the manifest is built.
 * Definitions are kept as given: schemas are read later, when the manifest is built.
 */
export class Declarations implements TypeNames {
  readonly types = new Map<string, Schema>()
  readonly events = new Map<string, EventEntry>()
  readonly channels = new Map<string, ChannelEntry>()
  private readonly idToName = new Map<string, string>()
  /** Each registered schema object, so that using the very object elsewhere names its type. */
  private readonly schemaToName = new Map<object, string>()
  /** The `$ref`s inside each registered type. */
  private readonly typeRefs = new Map<string, readonly string[]>()
  private readonly layout: SvcLayout

  constructor (
    config: Config,
    /** Called for each new type, so the app can validate `$ref`s to it. */
    private readonly onType: (name: string, schema: Schema) => void,
    /** Open while the app registers: once `ready()` has built the manifest, nothing can be declared. */
    private readonly lifecycle: Pick<Lifecycle<unknown>, 'requireOpen'>
  ) {
    this.layout = config.layout
    for (const [name, schema] of Object.entries(config.types)) this.addType(name, schema as JsonSchema)
    for (const [name, event] of Object.entries(config.events)) this.addEvent(name, event as SvcEventOptions)
    for (const [name, channel] of Object.entries(config.channels)) this.addChannel(name, channel as SvcChannelOptions)
  }

  /** Whether the app declares an event or a channel: what its realtime hub, and a broker, are for. */
  get declaresRealtime (): boolean {
    return this.events.size > 0 || this.channels.size > 0
  }

  /** What an event's data schema may `$ref`: the app's shared schemas, and registered types under their own `$id`. */
  payloadSchemas (appSchemas: Record<string, unknown>): object[] {
    const withOwnId = [...this.types.values()].filter((schema) => typeof schema.$id === 'string')
    return [...Object.values(appSchemas) as object[], ...withOwnId]
  }

  has (name: string): boolean {
    return this.types.has(name)
  }

  nameOfId (id: string): string | undefined {
    return this.idToName.get(id) ?? (this.types.has(id) ? id : undefined)
  }

  nameOfSchema (schema: object): string | undefined {
    return this.schemaToName.get(schema)
  }

  refsOf (name: string): readonly string[] {
    return this.typeRefs.get(name) as readonly string[]
  }

  addType (name: string, schema: JsonSchema): void {
    this.lifecycle.requireOpen(`app.svc.type(${describeValue(name)})`)
    assertName('type', name, 'types')
    if (RESERVED_TYPE_NAMES.has(name)) {
      throw new FST_SVC_INVALID_NAME(`type name "${name}" (types) is reserved: it is a JSON type name, or one a manifest never serves. Choose another name.`)
    }
    if (PROTOTYPE_NAMES.has(name)) {
      throw new FST_SVC_INVALID_NAME(`type name "${name}" (types) is a property of Object.prototype: Fastify and Ajv look shared schemas up by name in plain objects, so a $ref to it would not reach it. Choose another name.`)
    }
    if (!isPlainObject(schema)) throw new FST_SVC_INVALID_OPTION(`type "${name}" must be a JSON Schema object.`)
    this.assertNew(this.types, 'type', name)
    // Checked before Fastify sees it: its validator compiler would fail on it later, naming no type.
    const refs = inspectSchema(schema, `type "${name}"`)
    const protoKey = protoKeyIn(schema, `type "${name}"`)
    if (protoKey !== undefined) {
      throw new FST_SVC_INVALID_NAME(`${protoKey} has a key named "__proto__". A type is shared with Fastify, which copies shared schemas in a way that turns such a key into the object's prototype, so it would validate something else. Rename it, or declare the schema in svc.params or a route schema instead.`)
    }
    this.types.set(name, schema)
    this.typeRefs.set(name, refs)
    this.onType(name, schema)
    if (typeof schema.$id === 'string') this.idToName.set(schema.$id, name)
    // The first name wins when one object is registered under two.
    if (!this.schemaToName.has(schema)) this.schemaToName.set(schema, name)
  }

  addEvent (name: string, options: SvcEventOptions): void {
    this.lifecycle.requireOpen(`app.svc.event(${describeValue(name)})`)
    assertName('event', name, 'events')
    if (!isPlainObject(options)) throw new FST_SVC_INVALID_OPTION(`event "${name}" must be an object { description, data? }.`)
    assertDescription(options.description, `event "${name}"`)
    if (options.data !== undefined && !isPlainObject(options.data)) {
      throw new FST_SVC_INVALID_OPTION(`event "${name}": "data" must be an object schema.`)
    }
    if (options.data !== undefined && !isObjectSchema(options.data)) {
      throw new FST_SVC_UNMAPPABLE_SCHEMA(`event "${name}": "data" must be an object schema (each property is a payload field), for example Type.Object({ items: Type.Array(Type.String()) }).`)
    }
    if (options.data !== undefined) inspectSchema(options.data, `event "${name}" data`)
    this.assertNew(this.events, 'event', name)
    this.events.set(name, { description: options.description, data: options.data as Schema | undefined })
  }

  addChannel (name: string, options: SvcChannelOptions): void {
    this.lifecycle.requireOpen(`app.svc.channel(${describeValue(name)})`)
    requireAboutAndChannels(this.layout, `channel ${describeValue(name)}: channels exist`, 'remove the channel')
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

  private assertNew (map: Map<string, unknown>, kind: string, name: string): void {
    if (map.has(name)) throw new FST_SVC_DUPLICATE_NAME(`${kind} "${name}" is registered twice. Give each ${kind} its own name.`)
  }
}

/**
 * Adds a registered type to `fastify` as a shared schema under its name, so `Type.Ref('Product')` in
 * `svc.params` validates. A schema the app already added under that `$id` is left alone.
 */
export function shareType (fastify: FastifyInstance): (name: string, schema: Schema) => void {
  return (name, schema) => {
    if (fastify.getSchema(name) === undefined) fastify.addSchema({ ...schema, $id: name })
  }
}

/** Where in a value (inspected already, so of bounded depth) an own key named `__proto__` is, if anywhere. */
function protoKeyIn (value: unknown, path: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  if (Object.hasOwn(value, '__proto__')) return path
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((item, index) => [`${path}[${index}]`, item])
    : Object.keys(value).map((key) => [`${path}.${key}`, (value as Record<string, unknown>)[key]])
  for (const [at, child] of entries) {
    const found = protoKeyIn(child, at)
    if (found !== undefined) return found
  }
  return undefined
}
