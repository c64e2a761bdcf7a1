import { FST_SVC_UNKNOWN_REF, FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import type { ManifestParam, ManifestTypeRef } from '../manifest/types.js'

/** A JSON Schema read as plain data. Nothing here ever writes to it. */
export type Schema = Readonly<Record<string, unknown>>

/** The registered type names, and the `$id` each registered schema carries, mapped to its name. */
export interface TypeNames {
  has (name: string): boolean
  nameOfId (id: string): string | undefined
}

const PRIMITIVES = new Set(['string', 'number', 'boolean', 'array', 'object', 'null'])

/**
 * The manifest type name of a schema: a primitive, or the name of a registered type.
 * `where` names the command and field for error messages.
 */
export function typeNameOf (schema: Schema, types: TypeNames, where: string): string {
  // The usual schema, `{ type: 'string' }`, needs none of the set logic below.
  if (typeof schema.type === 'string' && schema.$ref === undefined && schema.$id === undefined) return primitive(schema.type, where)
  const found = candidateTypes(schema, types, where, true)
  if (found.size === 1) return [...found][0]
  const many = found.size > 1 ? `it allows ${[...found].join(', ')}` : 'it declares no type'
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: ${many}. Give it exactly one type (nullable and enums of one type are fine).`)
}

/** Like `typeNameOf`, without matching the schema's own `$id`: used for a registered type's own definition. */
export function ownTypeNameOf (schema: Schema, types: TypeNames, where: string): string {
  return typeNameOf(withoutId(schema), types, where)
}

function withoutId (schema: Schema): Schema {
  const { $id, ...rest } = schema
  return rest
}

/** Every type a schema admits, with `null` dropped when something else is there too. */
function candidateTypes (schema: Schema, types: TypeNames, where: string, top: boolean): Set<string> {
  const found = rawCandidates(schema, types, where)
  if (top && found.size > 1) found.delete('null')
  return found
}

function rawCandidates (schema: Schema, types: TypeNames, where: string): Set<string> {
  const named = registeredName(schema, types, where)
  if (named !== undefined) return new Set([named])
  if (typeof schema.type === 'string') return new Set([primitive(schema.type, where)])
  if (Array.isArray(schema.type)) return new Set(schema.type.map((t) => primitive(t, where)))
  if ('const' in schema) return new Set([jsonTypeOf(schema.const)])
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map(jsonTypeOf))
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(branches)) return union(branches, types, where)
  if (Array.isArray(schema.allOf)) return intersection(schema.allOf as Schema[], types, where)
  return new Set()
}

function registeredName (schema: Schema, types: TypeNames, where: string): string | undefined {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref, types)
    if (name !== undefined) return name
    throw new FST_SVC_UNKNOWN_REF(`${where} refers to "${schema.$ref}", which is not a registered type. Register it with the "types" option or app.svc.type().`)
  }
  if (typeof schema.$id === 'string') return types.nameOfId(schema.$id)
  return undefined
}

/** The registered type a `$ref` points at: by name, or by the `$id` its schema carries (`'Product#'` too). */
export function refName (ref: string, types: TypeNames): string | undefined {
  const target = ref.replace(/#$/, '')
  return types.has(target) ? target : types.nameOfId(target)
}

function primitive (type: unknown, where: string): string {
  const name = type === 'integer' ? 'number' : String(type)
  if (PRIMITIVES.has(name)) return name
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: "${name}" is not a JSON Schema type.`)
}

function jsonTypeOf (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function union (branches: Schema[], types: TypeNames, where: string): Set<string> {
  const found = new Set<string>()
  for (const branch of branches) {
    for (const type of rawCandidates(branch, types, where)) found.add(type)
  }
  return found
}

/** `allOf` admits only what every branch admits; branches without a type constrain nothing. */
function intersection (branches: Schema[], types: TypeNames, where: string): Set<string> {
  let found: Set<string> | undefined
  for (const branch of branches) {
    const own = rawCandidates(branch, types, where)
    if (own.size === 0) continue
    found = found === undefined ? own : new Set([...found].filter((type) => own.has(type)))
  }
  return found ?? new Set()
}

/** `{ type, description? }` for a return type, an event field or a type property. */
export function typeRefOf (schema: Schema, types: TypeNames, where: string): ManifestTypeRef {
  const ref: ManifestTypeRef = { type: typeNameOf(schema, types, where) }
  if (typeof schema.description === 'string') ref.description = schema.description
  return ref
}

/** The properties of an object schema, or undefined when the schema is not an object with properties. */
export function propertiesOf (schema: Schema): Record<string, Schema> | undefined {
  const properties = schema.properties
  if (properties === null || typeof properties !== 'object') return undefined
  return properties as Record<string, Schema>
}

/** An object schema that lists its properties, as params must be. */
export function isObjectWithProperties (schema: Schema): boolean {
  return propertiesOf(schema) !== undefined && (schema.type === undefined || schema.type === 'object')
}

/** An object schema, with or without properties, as event data must be. */
export function isObjectSchema (schema: Schema): boolean {
  return schema.type === 'object' || isObjectWithProperties(schema)
}

/** `{ field: { type, description? } }` for every property of an object schema. */
export function fieldsOf (schema: Schema, types: TypeNames, where: string): Record<string, ManifestTypeRef> {
  const fields: Record<string, ManifestTypeRef> = {}
  for (const [name, property] of sortedEntries(propertiesOf(schema) ?? {})) {
    fields[name] = typeRefOf(property, types, `${where}.${name}`)
  }
  return fields
}

/**
 * Manifest params from an object schema (the route collector has already refused any other kind).
 * `alwaysRequired` is for path params, which the URL always carries.
 */
export function paramsOf (schema: Schema, types: TypeNames, where: string, alwaysRequired = false): Record<string, ManifestParam> {
  const params: Record<string, ManifestParam> = {}
  for (const name of sortedKeys(propertiesOf(schema) as Schema)) params[name] = paramOf(schema, name, types, where, alwaysRequired)
  return params
}

/** The param `name` of an object schema; `where` names that schema. */
export function paramOf (schema: Schema, name: string, types: TypeNames, where: string, alwaysRequired: boolean): ManifestParam {
  const property = (propertiesOf(schema) as Record<string, Schema>)[name]
  const required = alwaysRequired || (Array.isArray(schema.required) && schema.required.includes(name))
  const param: ManifestParam = { type: typeNameOf(property, types, `${where}.${name}`), required }
  if (property.default !== undefined) param.default = copyOf(property.default)
  if (typeof property.description === 'string') param.description = property.description
  return param
}

/** A copy of a default value, so the manifest never shares an object with the user's schema. */
function copyOf (value: unknown): unknown {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value
}

/** Entries sorted by key in code-unit order, as every map of the manifest is. */
export function sortedEntries<V> (record: Readonly<Record<string, V>>): [string, V][] {
  return sortedKeys(record).map((key) => [key, record[key]])
}

/** The keys of a record in code-unit order. */
export function sortedKeys (record: Readonly<Record<string, unknown>>): string[] {
  // The default sort compares UTF-16 code units, the order RFC 8785 uses.
  return Object.keys(record).sort()
}
