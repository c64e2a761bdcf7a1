import { describeValue } from '../util/describe.js'
import { FST_SVC_UNKNOWN_REF, FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import type { ManifestField, ManifestParam, ManifestProperty } from '../manifest/types.js'
import type { SharedTypes } from './shared-types.js'
import { isPlainObject } from '../util/objects.js'
import { ANY_TYPE, COPIED_KEYWORDS, MANIFEST_BUILT_IN_TYPES, MANIFEST_PRIMITIVES } from '../manifest/keywords.js'
import { MAX_DEPTH } from '../schema/keywords.js'
import { propertiesOf, refName, type Schema, type TypeNames } from '../schema/schema.js'
import { setOwn } from '../util/own-key.js'
import { jsonCopy } from '../schema/json-values.js'

/**
 * The manifest type name of a schema: a primitive, `any` for a schema that allows any JSON value (it
 * declares no type: `{}`, `Type.Unknown()`), or the name of a registered type.
 * `where` names the command and field for error messages.
 */
export function typeNameOf (schema: unknown, types: SchemaLookup, where: string): string {
  const node = schemaNode(schema, where)
  // The usual schema, `{ type: 'string' }`, needs none of the set logic below.
  if (typeof node.type === 'string' && node.$ref === undefined && node.$id === undefined) {
    return types.nameOfSchema(node) ?? primitive(node.type, where)
  }
  const found = rawCandidates(node, types, where, 0)
  if (found.size > 1) found.delete('null')
  if (found.size === 1) return [...found][0]
  const many = found.size > 1 ? `it allows ${[...found].join(', ')}` : 'it allows no value'
  throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: ${many}. Give it exactly one type (nullable and enums of one type are fine).`)
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

function rawCandidates (schema: unknown, types: SchemaLookup, where: string, depth: number): Set<string> {
  if (depth > MAX_DEPTH) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: anyOf, oneOf and allOf nest more than ${MAX_DEPTH} levels deep, or the schema contains itself. Describe the type with svc.returns or a registered type.`)
  }
  const node = schemaNode(schema, where)
  if (typeof node.$ref === 'string') {
    const target = resolveRef(node.$ref, types, where)
    return typeof target === 'string' ? new Set([target]) : rawCandidates(target, types, where, depth + 1)
  }
  const named = registeredName(node, types)
  if (named !== undefined) return new Set([named])
  if (typeof node.type === 'string') return new Set([primitive(node.type, where)])
  if (Array.isArray(node.type)) return new Set(node.type.map((type) => primitive(type, where)))
  if ('const' in node) return new Set([jsonTypeOf(node.const, where, 'const')])
  if (Array.isArray(node.enum)) return new Set(node.enum.map((value) => jsonTypeOf(value, where, 'enum')))
  const branches = node.anyOf ?? node.oneOf
  if (Array.isArray(branches)) return union(branches, types, where, depth)
  if (Array.isArray(node.allOf)) return intersection(node.allOf, types, where, depth)
  // No keyword that decides a type: any JSON value is allowed.
  return new Set([ANY_TYPE])
}

/**
 * What a `$ref` names: a registered type, or a schema the app shared with `app.addSchema()`, which is a
 * type under its `$id` when that is a valid type name and otherwise the schema itself, to describe inline.
 */
function resolveRef (ref: string, types: SchemaLookup, where: string): string | Schema {
  const name = refName(ref, types) ?? types.shared?.resolve(ref)
  if (name !== undefined) return name
  throw new FST_SVC_UNKNOWN_REF(`${where} refers to "${ref}", which is neither a registered type nor a schema shared with app.addSchema(). Register it with the "types" option or app.svc.type(), or share it with app.addSchema({ $id: '${ref}', ... }) before ready().`)
}

function registeredName (schema: Schema, types: SchemaLookup): string | undefined {
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

function union (branches: unknown[], types: SchemaLookup, where: string, depth: number): Set<string> {
  const found = new Set<string>()
  for (const branch of branches) {
    // `false` admits nothing, so it adds no type; `true` admits anything, which rawCandidates refuses.
    if (branch === false) continue
    const own = rawCandidates(branch, types, where, depth + 1)
    // A branch that allows any value makes the union allow any value.
    if (own.has(ANY_TYPE)) return own
    for (const type of own) found.add(type)
  }
  return found
}

/**
 * `allOf` admits only what every branch admits; branches without a type (boolean ones too) constrain
 * nothing, and when none has one, any value is allowed.
 */
function intersection (branches: unknown[], types: SchemaLookup, where: string, depth: number): Set<string> {
  let found: Set<string> | undefined
  for (const branch of branches) {
    if (typeof branch === 'boolean') continue
    const own = rawCandidates(branch, types, where, depth + 1)
    if (own.has(ANY_TYPE)) continue
    found = found === undefined ? own : new Set([...found].filter((type) => own.has(type)))
  }
  return found ?? new Set([ANY_TYPE])
}

/** What the mapping looks a type up by: a registered type, or a schema shared with `app.addSchema`. */
export interface SchemaLookup extends Pick<TypeNames, 'has' | 'nameOfId' | 'nameOfSchema'> {
  shared?: SharedTypes
}

/**
 * What a nested part of a field that the manifest cannot name with one type does to the field — an `$ref`
 * to something neither registered nor shared (a pointer into the route's own schema, `#/definitions/note`;
 * a schema with its own `$id` inside it), or a union of several types
 * (`items: { anyOf: [{ type: 'string' }, { type: 'number' }] }`):
 * - `'leave-out'`: that part is the route's to check, so the manifest leaves it out (an array without
 *   `items`; a property as `any`, beside its siblings described as usual) rather than describe it wrongly
 *   or refuse a route Fastify validates. The field itself is still described. Params and return types.
 * - `'refuse'`: the part is refused with the error naming it: a type's own property or items are the
 *   type's fields, not a detail of one. Parts deeper down are left out as above.
 * At the top level, a schema the manifest cannot name is always an error naming it.
 */
export type DescribeMode = 'leave-out' | 'refuse'

/** Where a field is described. */
export interface DescribeContext {
  types: SchemaLookup
  /** The command and field, for error messages: `command "orders.create" param lines`. */
  where: string
  /** How many items and properties are above it, up to MAX_DEPTH. */
  depth: number
  /** Whether a caller must supply it, for a property of an object; a field that is none has no `required`. */
  required?: boolean
}

/** A part the manifest cannot name with one type, and the error that says so. */
export interface Unnamed {
  unnamed: Error
}

/**
 * The descriptor of a field: `returns`, an `items`, a type's definition; with `required` when the context
 * gives it (a property of an object). A registered or shared type stays `{ type: 'Name' }` with the field's
 * own `default` and `description`; any other schema says, after its type, what it declares (the keywords of
 * lib/manifest/keywords.ts), then its `items` and its `properties`, described the same way however deep, up
 * to MAX_DEPTH. A schema the manifest cannot name is returned as `Unnamed`; what `mode` does with a nested
 * one, see DescribeMode. Any other problem (too deep, a default JSON cannot hold) is thrown: it refuses the
 * field whole, however deep.
 */
export function describeField (schema: unknown, mode: DescribeMode, context: DescribeContext): ManifestField | Unnamed {
  const { types, where, depth, required } = context
  if (depth > MAX_DEPTH) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`${where}: items and properties nest more than ${MAX_DEPTH} levels deep, or the schema contains itself. Register the repeating part as a type (the "types" option, or app.addSchema({ $id })) and refer to it with $ref.`)
  }
  const type = nameOf(schema, types, where)
  if (typeof type !== 'string') return type
  const node = schema as Schema
  const field: ManifestField = { type }
  if (required !== undefined) (field as ManifestProperty).required = required
  if (node.default !== undefined) field.default = jsonCopy(node.default, `${where} default`)
  if (!MANIFEST_BUILT_IN_TYPES.has(type)) {
    if (typeof node.description === 'string') field.description = node.description
    return field
  }
  const body = bodyOf(node, types)
  if (field.default === undefined && body.default !== undefined) field.default = jsonCopy(body.default, `${where} default`)
  const description = node.description ?? body.description
  if (typeof description === 'string') field.description = description
  const allowed = allowedValues(node) ?? (body === node ? undefined : allowedValues(body))
  if (allowed !== undefined) field.enum = jsonCopy(allowed, `${where} enum`) as unknown[]
  if (declaresAny(node) || (body !== node && declaresAny(body))) {
    const target = field as unknown as Record<string, unknown>
    for (const { key, value: kind } of COPIED_KEYWORDS) {
      const value = node[key] ?? body[key]
      if (kind === 'text' ? typeof value === 'string' : kind === 'number' ? Number.isFinite(value) : Number.isSafeInteger(value) && (value as number) >= 0) {
        target[key] = value
      }
    }
  }
  if (type === 'array' && isPlainObject(body.items)) {
    const items = nested(mode, describeField(body.items, 'leave-out', { types, where: `${where}[]`, depth: depth + 1 }))
    if (items !== undefined) field.items = items
  }
  if (type === 'object' && propertiesOf(body) !== undefined) {
    const properties = nested(mode, propertiesOfSchema(body, { types, where, depth: depth + 1 }, mode))
    if (properties !== undefined) field.properties = properties
  }
  return field
}

/** The manifest type name of a schema, or, when the manifest cannot name it, the error that says why. */
function nameOf (schema: unknown, types: SchemaLookup, where: string): string | Unnamed {
  try {
    return typeNameOf(schema, types, where)
  } catch (error) {
    const { code } = error as { code?: unknown }
    /* c8 ignore next -- typeNameOf throws only these two codes; anything else would be a bug, passed on as it is */
    if (code !== 'FST_SVC_UNKNOWN_REF' && code !== 'FST_SVC_UNMAPPABLE_SCHEMA') throw error
    return { unnamed: error as Error }
  }
}

/** A nested part: left out when unnamed, or refused with its error (see DescribeMode). */
function nested<T extends object> (mode: DescribeMode, part: T | Unnamed): T | undefined {
  if (!isUnnamed(part)) return part
  if (mode === 'refuse') throw part.unnamed
  return undefined
}

function isUnnamed (part: object): part is Unnamed {
  return Object.hasOwn(part, 'unnamed')
}

/** A top-level field, which the manifest must name: its error otherwise. */
function named<T extends object> (part: T | Unnamed): T {
  if (isUnnamed(part)) throw part.unnamed
  return part
}

const COPIED: ReadonlySet<string> = new Set(COPIED_KEYWORDS.map(({ key }) => key))

/**
 * Whether a schema has any of the keywords a descriptor copies (COPIED_KEYWORDS). Most have none, and their
 * own few keys are read faster than ten lookups by name (schemas come in many shapes, so each lookup is a
 * slow one).
 */
function declaresAny (schema: Schema): boolean {
  for (const key in schema) {
    if (COPIED.has(key)) return true
  }
  return false
}

/**
 * The schema that declares a field's keywords: the field's own, or, for a nullable union
 * (`anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }]`), its one other branch; for a `$ref` to a
 * shared schema described inline, that schema.
 */
function bodyOf (node: Schema, types: SchemaLookup): Schema {
  // A `$ref` here is to a shared schema described inline: a registered type is no primitive, and ends before.
  if (typeof node.$ref === 'string') return bodyOf(types.shared?.resolve(node.$ref) as Schema, types)
  const branches = node.anyOf ?? node.oneOf
  if (node.type !== undefined || !Array.isArray(branches)) return node
  const others = branches.filter((branch) => !isNullSchema(branch))
  return others.length === 1 && isPlainObject(others[0]) ? bodyOf(others[0], types) : node
}

function isNullSchema (schema: unknown): boolean {
  return isPlainObject(schema) && (schema.type === 'null' || ('const' in schema && schema.const === null))
}

/** The values a schema allows, when it lists them: `enum`, a lone `const`, or a union of `const`s (and null). */
function allowedValues (node: Schema): unknown[] | undefined {
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum
  if ('const' in node) return [node.const]
  const branches = node.anyOf ?? node.oneOf
  if (!Array.isArray(branches) || branches.length === 0) return undefined
  const values: unknown[] = []
  for (const branch of branches) {
    if (!isPlainObject(branch)) return undefined
    if ('const' in branch) values.push(branch.const)
    else if (Array.isArray(branch.enum)) values.push(...(branch.enum as unknown[]))
    else if (branch.type === 'null') values.push(null)
    else return undefined
  }
  return values
}

/**
 * The property descriptors of an object schema, in declaration order. `required` means the caller must
 * send it: listed in `required` and without a `default` (Fastify's Ajv fills defaults in before it checks
 * `required`). A property the manifest cannot name with one type is, with `'refuse'`, the error returned;
 * with `'leave-out'`, described as `any` (its name, `required` and description kept), the route's to check,
 * and the other properties are described as usual. A property named `__proto__` is a property like any
 * other (see setOwn).
 */
function propertiesOfSchema (schema: Schema, context: Omit<DescribeContext, 'required'>, mode: DescribeMode): Record<string, ManifestProperty> | Unnamed {
  const properties = propertiesOf(schema) as Record<string, unknown>
  const out: Record<string, ManifestProperty> = {}
  for (const name of Object.keys(properties)) {
    const required = isRequired(schema, name, properties[name])
    const property = describeField(properties[name], 'leave-out', { ...context, where: `${context.where}.${name}`, required })
    if (!isUnnamed(property)) setOwn(out, name, property)
    else if (mode === 'refuse') return property
    else setOwn(out, name, unnamedProperty(properties[name], required))
  }
  return out
}

/** A property whose type the manifest cannot name, as `any`: what a caller still learns of it. */
function unnamedProperty (schema: unknown, required: boolean): ManifestProperty {
  const property: ManifestProperty = { type: ANY_TYPE, required }
  if (isPlainObject(schema) && typeof schema.description === 'string') property.description = schema.description
  return property
}

function isRequired (schema: Schema, name: string, property: unknown): boolean {
  const listed = Array.isArray(schema.required) && schema.required.includes(name)
  return listed && !(isPlainObject(property) && property.default !== undefined)
}

/** The descriptor of a return type, an `items` or a type's definition: no `required`. */
export function typeRefOf (schema: unknown, types: SchemaLookup, where: string): ManifestField {
  return named(describeField(schema, 'leave-out', { types, where, depth: 0 }))
}

/** A type's definition: a copy without its `$id`, so that neither its id nor its identity names it. */
export function describeType (schema: Schema, types: SchemaLookup, where: string): ManifestField {
  const { $id, ...rest } = schema
  return named(describeField(rest, 'refuse', { types, where, depth: 0 }))
}

/** `{ field: descriptor }` for every property of an object schema (an event's data), with `required`. */
export function fieldsOf (schema: Schema, types: SchemaLookup, where: string): Record<string, ManifestProperty> {
  return propertiesOf(schema) === undefined ? {} : named(propertiesOfSchema(schema, { types, where, depth: 1 }, 'refuse'))
}

/**
 * The param `name` of an object schema; `where` names that schema. `required` as for any property, or
 * `alwaysRequired` (a path param, which the URL carries).
 */
export function paramOf (schema: Schema, name: string, types: SchemaLookup, where: string, alwaysRequired: boolean): ManifestParam {
  const property = (propertiesOf(schema) as Record<string, unknown>)[name]
  const required = alwaysRequired || isRequired(schema, name, property)
  return named(describeField(property, 'leave-out', { types, where: `${where}.${name}`, depth: 1, required })) as ManifestParam
}
