import { describeValue } from '../util/describe.js'
import { FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import { jsonCopy } from './json-values.js'
import { JSON_SCHEMA_TYPES } from '../manifest/keywords.js'
import { MAX_DEPTH, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_VALUES } from './keywords.js'

/** Keywords that hold JSON values rather than schemas. */
const VALUE_KEYWORDS = new Set(['default', 'examples'])
/** Keywords whose values decide the manifest type, so a value JSON cannot hold leaves it unmappable. */
const TYPE_VALUE_KEYWORDS = new Set(['const', 'enum'])

/**
 * Reads the whole of a schema that the plugin installs as a route's validation schema or shares with
 * Fastify (`svc.params`, registered types), or maps itself (`svc.returns`, event data), and refuses with an
 * error naming the field what would otherwise fail later with a bare error, or with one that does not name
 * the field: nesting deeper than `MAX_DEPTH` (a schema that contains itself included), `null` or
 * another non-schema where a schema belongs, a `type` that is not a JSON Schema type, and values JSON
 * cannot hold (a BigInt, a function, a Symbol; `const: undefined`). Returns the `$ref`s it found.
 */
export function inspectSchema (schema: unknown, where: string): string[] {
  const refs: string[] = []
  schemaAt(schema, where, 0, refs)
  return refs
}

function schemaAt (schema: unknown, path: string, depth: number, refs: string[]): void {
  if (typeof schema === 'boolean') return
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    unmappable(`${path} is ${describeValue(schema)}, where a schema belongs. Use a schema object such as { type: 'string' } (or true / false).`)
  }
  if (depth >= MAX_DEPTH) {
    unmappable(`${shortened(path)} nests schemas more than ${MAX_DEPTH} levels deep, or contains itself. Flatten it, or name the repeated part as a registered type and refer to it with $ref.`)
  }
  const node = schema as Record<string, unknown>
  for (const key of Object.keys(node)) {
    const value = node[key]
    const at = `${path}.${key}`
    if (key === 'type') checkType(value, at)
    else if (key === '$ref' && typeof value === 'string') refs.push(value)
    else if (TYPE_VALUE_KEYWORDS.has(key)) checkTypeValue(key, value, at)
    else if (VALUE_KEYWORDS.has(key)) checkValue(value, at)
    else if (SUBSCHEMA_MAPS.has(key)) schemaMapAt(key, value, at, depth, refs)
    else if (SUBSCHEMA_LISTS.has(key)) schemaListAt(value, at, depth, refs)
    else if (SUBSCHEMA_VALUES.has(key)) {
      if (Array.isArray(value)) schemaListAt(value, at, depth, refs)
      else schemaAt(value, at, depth + 1, refs)
    } else {
      // An annotation or a keyword this walk does not know: it holds JSON, and schemas only by convention.
      otherAt(value, at, depth + 1)
    }
  }
}

function schemaMapAt (keyword: string, value: unknown, path: string, depth: number, refs: string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    unmappable(`${path} is ${describeValue(value)}; it must map names to schemas.`)
  }
  const map = value as Record<string, unknown>
  for (const name of Object.keys(map)) {
    // draft-07's `dependencies` also maps a property to the names of the properties it needs.
    if (keyword === 'dependencies' && Array.isArray(map[name])) otherAt(map[name], `${path}.${name}`, depth + 1)
    else schemaAt(map[name], `${path}.${name}`, depth + 1, refs)
  }
}

function schemaListAt (value: unknown, path: string, depth: number, refs: string[]): void {
  if (!Array.isArray(value)) unmappable(`${path} is ${describeValue(value)}; it must be a list of schemas.`)
  for (let index = 0; index < value.length; index++) schemaAt(value[index], `${path}[${index}]`, depth + 1, refs)
}

/**
 * Values under keywords the walk does not know (`required`, `x-…` annotations): JSON only. A `$ref` in them
 * is data, as it is to the validator.
 */
function otherAt (value: unknown, path: string, depth: number): void {
  if (value === undefined || value === null) return
  if (typeof value !== 'object') {
    if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
      unmappable(`${path} holds ${describeValue(value)}; a schema holds JSON values only.`)
    }
    return
  }
  if (depth >= MAX_DEPTH) {
    unmappable(`${shortened(path)} nests more than ${MAX_DEPTH} levels deep, or contains itself.`)
  }
  const object = value as Record<string, unknown>
  for (const key of Object.keys(object)) otherAt(object[key], Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, depth + 1)
}

function checkType (type: unknown, path: string): void {
  const types = Array.isArray(type) ? type : [type]
  for (const name of types) {
    if (typeof name !== 'string' || !JSON_SCHEMA_TYPES.has(name)) {
      unmappable(`${path}: ${describeValue(name)} is not a JSON Schema type (string, number, integer, boolean, array, object or null).`)
    }
  }
}

/** `const` and `enum`: their values give the manifest type, so each must be a JSON value. */
function checkTypeValue (keyword: string, value: unknown, path: string): void {
  if (keyword === 'enum' && !Array.isArray(value)) unmappable(`${path} is ${describeValue(value)}; it must be a list of JSON values.`)
  const values = keyword === 'enum' ? value as unknown[] : [value]
  for (const item of values) {
    jsonCopy(item, path, (what) => unmappable(`${path} holds ${what}, so it has no JSON type. Use JSON values only (strings, numbers, booleans, null, arrays, objects).`))
  }
}

/** `default` and `examples`: JSON values; `undefined` stands for no value, as it does for a param's default. */
function checkValue (value: unknown, path: string): void {
  if (value !== undefined) jsonCopy(value, path)
}

/** How much of a path an error message shows when the path is as deep as the schema that was too deep. */
const SHOWN_PATH = 160

function shortened (path: string): string {
  return path.length > SHOWN_PATH ? `${path.slice(0, SHOWN_PATH)}…` : path
}

function unmappable (message: string): never {
  throw new FST_SVC_UNMAPPABLE_SCHEMA(message)
}
