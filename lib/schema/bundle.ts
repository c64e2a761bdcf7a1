import type { Schema } from './schema.js'
import { isPlainObject } from '../util/objects.js'
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_VALUES } from './keywords.js'

/** A shared schema by its `$id` (or a registered type by its name), as the route's validator finds it. */
export type ResolveSchema = (id: string) => Schema | undefined

/** A schema document (or a part of one with its own `$id`): what a `$ref` without a URI resolves against. */
interface Resource {
  root: Schema
  /** Its key under `$defs` when it has one (always for a resource reached by `$ref`). */
  key?: string
  /** The name to give it under `$defs` if a `$ref` points into it. */
  hint: string
  /** The schemas with an `$id` inside it, by that `$id`; collected on the first lookup. */
  ids?: Map<string, Schema>
}

/**
 * Copies route schemas into one self-contained JSON Schema: every `$ref` the route's validator resolves
 * (registered types, shared schemas, schemas with their own `$id`, pointers into the schema itself) points
 * into the `$defs` of the copy instead. Data keywords (`enum`, `const`, `default`, `examples`, …) are copied
 * as they are; values JSON cannot carry (functions, symbols, bigints, undefined) are left out.
 */
export class SchemaBundle {
  /** Null-prototype: a schema `$id` such as `__proto__` is an ordinary key. */
  readonly defs: Record<string, unknown> = Object.create(null)
  private readonly keys = new Map<Schema, string>()

  constructor (private readonly resolve: ResolveSchema) {}

  /** A resource for a schema given directly (a route's `querystring` or `body` schema); `hint` names it in `$defs` if needed. */
  resource (root: Schema, hint: string): Resource {
    return { root, hint }
  }

  /** A copy of `schema`, a part of `resource`, with its references rewritten. */
  copy (schema: unknown, resource: Resource): unknown {
    if (!isPlainObject(schema)) return copyData(schema)
    if (schema !== resource.root && typeof schema.$id === 'string') return { $ref: `#/$defs/${this.define(schema, schema.$id)}` }
    const copy: Record<string, unknown> = Object.create(null)
    for (const key of Object.keys(schema)) {
      const value = schema[key]
      if (key === '$id' || key === '$schema') continue
      if (key === '$ref' && typeof value === 'string') {
        const target = this.target(value, resource)
        if (target !== undefined) copy.$ref = target
        else copy.$comment = `The route also checks this value against "${value}".`
      } else if (SUBSCHEMA_MAPS.has(key) && isPlainObject(value)) {
        const map: Record<string, unknown> = Object.create(null)
        for (const name of Object.keys(value)) setIfDefined(map, name, this.copy(value[name], resource))
        copy[key] = map
      } else if ((SUBSCHEMA_VALUES.has(key) || SUBSCHEMA_LISTS.has(key))) {
        setIfDefined(copy, key, Array.isArray(value) ? value.map((item) => this.copy(item, resource)) : this.copy(value, resource))
      } else {
        setIfDefined(copy, key, copyData(value))
      }
    }
    return copy
  }

  /** The `#/$defs/…` pointer a `$ref` becomes, or undefined when it names nothing the plugin can see. */
  private target (ref: string, resource: Resource): string | undefined {
    const hash = ref.indexOf('#')
    const base = hash === -1 ? ref : ref.slice(0, hash)
    const pointer = hash === -1 ? '' : ref.slice(hash + 1)
    // `#name` is a named anchor: no pointer to rewrite.
    if (pointer !== '' && !pointer.startsWith('/')) return undefined
    let key: string | undefined
    if (base === '') {
      key = resource.key ?? this.define(resource.root, resource.hint)
    } else {
      const schema = idsOf(resource).get(base) ?? this.resolve(base)
      if (schema !== undefined) key = this.define(schema, base)
    }
    return key === undefined ? undefined : `#/$defs/${key}${pointer}`
  }

  /** The key of `schema` under `$defs`, copying it there the first time. */
  private define (schema: Schema, hint: string): string {
    const known = this.keys.get(schema)
    if (known !== undefined) return known
    const key = this.freeKey(hint)
    this.keys.set(schema, key)
    // Taken before the copy, so a schema that refers to itself finds its own key.
    this.defs[key] = true
    this.defs[key] = this.copy(schema, { root: schema, key, hint })
    return key
  }

  private freeKey (hint: string): string {
    const base = hint.replace(/[^A-Za-z0-9_.-]/g, '_')
    let key = base
    for (let suffix = 2; key in this.defs; suffix++) key = `${base}_${suffix}`
    return key
  }
}

/** The schemas with an `$id` inside a resource, collected once. */
function idsOf (resource: Resource): Map<string, Schema> {
  if (resource.ids === undefined) {
    resource.ids = new Map()
    if (typeof resource.root.$id === 'string') resource.ids.set(resource.root.$id.replace(/#$/, ''), resource.root)
    collectIds(resource.root, resource.root, resource.ids)
  }
  return resource.ids
}

function collectIds (schema: unknown, root: Schema, found: Map<string, Schema>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) collectIds(item, root, found)
    return
  }
  if (!isPlainObject(schema)) return
  if (schema !== root && typeof schema.$id === 'string') {
    found.set(schema.$id.replace(/#$/, ''), schema)
    // Its own ids belong to it.
    return
  }
  for (const key of Object.keys(schema)) {
    const value = schema[key]
    if (SUBSCHEMA_MAPS.has(key) && isPlainObject(value)) {
      for (const child of Object.values(value)) collectIds(child, root, found)
    } else if ((SUBSCHEMA_VALUES.has(key) || SUBSCHEMA_LISTS.has(key))) {
      collectIds(value, root, found)
    }
  }
}

/** A JSON copy of a value: what JSON cannot carry comes back undefined, and is left out of objects and arrays. */
function copyData (value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (Array.isArray(value)) return value.map(copyData).filter((item) => item !== undefined)
  if (typeof value !== 'object') return undefined
  const copy: Record<string, unknown> = Object.create(null)
  for (const key of Object.keys(value)) setIfDefined(copy, key, copyData((value as Record<string, unknown>)[key]))
  return copy
}

function setIfDefined (target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value
}
