import { isPlainObject } from '../util/objects.js'
import { TYPE_REFERENCE_PATTERN } from '../manifest/names.js'
import { READER_BUILT_IN_TYPES } from '../manifest/keywords.js'
import { isFluentSchema, readSchema } from '../schema/fluent.js'
import type { Schema } from '../schema/schema.js'

const TYPE_REFERENCE = new RegExp(TYPE_REFERENCE_PATTERN)

/**
 * The schemas the app shared with `app.addSchema({ $id })` that the manifest refers to. A `$ref` to one
 * (`'User'` or `'User#'`) names a type under its `$id` when that is a valid type name, described once under
 * `types`, so a recursive shape ends in a type; any other `$id` (a URL) is described inline.
 */
export class SharedTypes {
  /** The shared schemas used as types, by name, in the order they were first referred to. */
  readonly found = new Map<string, Schema>()

  /** `schemas`: the app's shared schemas by `$id`, as `fastify.getSchemas()` gives them. */
  constructor (private readonly schemas: Readonly<Record<string, unknown>>) {}

  /** The type name a `$ref` to a shared schema gives, the shared schema to describe inline, or undefined. */
  resolve (ref: string): string | Schema | undefined {
    const id = ref.endsWith('#') ? ref.slice(0, -1) : ref
    const shared = Object.hasOwn(this.schemas, id) ? this.schemas[id] : undefined
    if (!isPlainObject(shared) && !isFluentSchema(shared)) return undefined
    const schema = readSchema(shared) as Schema
    if (!TYPE_REFERENCE.test(id) || READER_BUILT_IN_TYPES.has(id)) return schema
    if (!this.found.has(id)) this.found.set(id, schema)
    return id
  }
}
