import { describeValue } from '../util/describe.js'
import { FST_SVC_UNKNOWN_REF, FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import type { ManifestParam, ManifestTypeRef } from '../manifest/types.js'
import { isPlainObject } from '../util/objects.js'
import { MANIFEST_PRIMITIVES, MAX_DEPTH } from '../schema/keywords.js'
import { propertiesOf, refName, type Schema, type TypeNames } from '../schema/schema.js'
import { setOwn } from '../util/own-key.js'
import { jsonCopy } from '../schema/json-values.js'

/**
 * The manifest type name of a schema: a primitive, or the name of a registered type.
 * `where` names the command and field for error messages.
 */
export function typeNameOf (schema: unknown, types: TypeNames, where: string): string {
  const node = schemaNode(schema, where)
  // The usual schema, `{ type: 'string' }`, needs none of the set logic below.
  if (typeof node.type === 'string' && node.$ref === undefined && node.$id === undefined) {
    return types.nameOfSchema(node) ?? primitive(node.type, where)
  }
  const found = rawCandidates(node, types, where, 0)
  if (found.size > 1) found.delete('null')
  if (found.size === 1) return [...found][0]
  const many = found.size > 1 ? `it allows ${[...found].join(', ')}` : 'it declares no type'
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: ${many}. Give it exactly one type (nullable and enums of one type are fine).`)
}

/**
 * Like `typeNameOf`, for a registered type's own definition: neither its `$id` nor its identity names it
 * (a copy without `$id` is neither the registered object nor carries its id).
 */
export function ownTypeNameOf (schema: Schema, types: TypeNames, where: string): string {
  const { $id, ...rest } = schema
  return typeNameOf(rest, types, where)
}

/**
 * A schema read where a schema object is expected. A boolean schema, `null` or any other value has no
 * manifest type: refused with an error naming the field, never a TypeError.
 */
function schemaNode (schema: unknown, where: string): Schema {
  if (isPlainObject(schema)) return schema
  const what = typeof schema === 'boolean'
    ? `is the boolean schema ${schema}, which ${schema ? 'allows any value' : 'allows no value'}`
    : `is ${describeValue(schema)}, not a schema object`
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where} ${what}. Give it a schema with one type, for example { type: 'string' }.`)
}

function rawCandidates (schema: unknown, types: TypeNames, where: string, depth: number): Set<string> {
  if (depth > MAX_DEPTH) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: anyOf, oneOf and allOf nest more than ${MAX_DEPTH} levels deep, or the schema contains itself. Describe the type with svc.returns or a registered type.`)
  }
  const node = schemaNode(schema, where)
  const named = registeredName(node, types, where)
  if (named !== undefined) return new Set([named])
  if (typeof node.type === 'string') return new Set([primitive(node.type, where)])
  if (Array.isArray(node.type)) return new Set(node.type.map((type) => primitive(type, where)))
  if ('const' in node) return new Set([jsonTypeOf(node.const, where, 'const')])
  if (Array.isArray(node.enum)) return new Set(node.enum.map((value) => jsonTypeOf(value, where, 'enum')))
  const branches = node.anyOf ?? node.oneOf
  if (Array.isArray(branches)) return union(branches, types, where, depth)
  if (Array.isArray(node.allOf)) return intersection(node.allOf, types, where, depth)
  return new Set()
}

function registeredName (schema: Schema, types: TypeNames, where: string): string | undefined {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref, types)
    if (name !== undefined) return name
    throw new FST_SVC_UNKNOWN_REF(`${where} refers to "${schema.$ref}", which is not a registered type. Register it with the "types" option or app.svc.type().`)
  }
  if (typeof schema.$id === 'string') {
    const name = types.nameOfId(schema.$id)
    if (name !== undefined) return name
  }
  return types.nameOfSchema(schema)
}

function primitive (type: unknown, where: string): string {
  const name = type === 'integer' ? 'number' : type
  if (typeof name === 'string' && MANIFEST_PRIMITIVES.has(name)) return name
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: ${describeValue(type)} is not a JSON Schema type (string, number, integer, boolean, array, object or null).`)
}

/** The JSON type of a `const` or `enum` value; a value JSON cannot hold has none. */
function jsonTypeOf (value: unknown, where: string, keyword: string): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const type = typeof value
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'object') return type
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: its ${keyword} holds ${describeValue(value)}, which is not a JSON value. Use JSON values only (strings, numbers, booleans, null, arrays, objects).`)
}

function union (branches: unknown[], types: TypeNames, where: string, depth: number): Set<string> {
  const found = new Set<string>()
  for (const branch of branches) {
    // `false` admits nothing, so it adds no type; `true` admits anything, which rawCandidates refuses.
    if (branch === false) continue
    for (const type of rawCandidates(branch, types, where, depth + 1)) found.add(type)
  }
  return found
}

/** `allOf` admits only what every branch admits; branches without a type (boolean ones too) constrain nothing. */
function intersection (branches: unknown[], types: TypeNames, where: string, depth: number): Set<string> {
  let found: Set<string> | undefined
  for (const branch of branches) {
    if (typeof branch === 'boolean') continue
    const own = rawCandidates(branch, types, where, depth + 1)
    if (own.size === 0) continue
    found = found === undefined ? own : new Set([...found].filter((type) => own.has(type)))
  }
  return found ?? new Set()
}

/** `{ type, description? }` for a return type, an event field or a type property. */
export function typeRefOf (schema: unknown, types: TypeNames, where: string): ManifestTypeRef {
  const ref: ManifestTypeRef = { type: typeNameOf(schema, types, where) }
  const { description } = schema as Schema
  if (typeof description === 'string') ref.description = description
  return ref
}

/**
 * `{ field: { type, description? } }` for every property of an object schema, in the schema's declaration
 * order. A property named `__proto__` is a field like any other (see setOwn).
 */
export function fieldsOf (schema: Schema, types: TypeNames, where: string): Record<string, ManifestTypeRef> {
  const properties = propertiesOf(schema) ?? {}
  const fields: Record<string, ManifestTypeRef> = {}
  for (const name of Object.keys(properties)) setOwn(fields, name, typeRefOf(properties[name], types, `${where}.${name}`))
  return fields
}

/**
 * The param `name` of an object schema; `where` names that schema. `required` means the caller must send
 * it: listed in `required` and without a `default` (Fastify's Ajv fills defaults in before it checks
 * `required`), or `alwaysRequired` (a path param, which the URL carries).
 */
export function paramOf (schema: Schema, name: string, types: TypeNames, where: string, alwaysRequired: boolean): ManifestParam {
  const property = (propertiesOf(schema) as Record<string, unknown>)[name]
  const field = `${where}.${name}`
  const type = typeNameOf(property, types, field)
  const { default: defaultValue, description } = property as Schema
  const listed = Array.isArray(schema.required) && schema.required.includes(name)
  const param: ManifestParam = { type, required: alwaysRequired || (listed && defaultValue === undefined) }
  if (defaultValue !== undefined) param.default = jsonCopy(defaultValue, `${field} default`)
  if (typeof description === 'string') param.description = description
  return param
}
