/*
 * The human page's forms, without a DOM: a command's params (the manifest's field descriptors, docs/manifest.md)
 * become a tree of fields the page renders, and what a visitor typed (a tree of raw strings of the same
 * shape) becomes the params of the call. Pure, so it runs in Node's tests as in the browser.
 */
import type { ManifestField } from '../manifest/types.js'
import { JSON_SCHEMA_TYPES } from '../schema/keywords.js'

/**
 * A field descriptor of the manifest: a param, a property, an array's items, a type. The wire format's own
 * type (a type-only import: nothing of the plugin reaches the browser), with `required` where it is given.
 */
export type Descriptor = ManifestField & { required?: boolean }

/** The manifest's `types`: a name → its definition. */
export type TypeMap = Readonly<Record<string, Descriptor>>

interface FieldBase {
  /** The key in its object; `''` for the form itself and for array items. */
  name: string
  /** Where the field is, as a visitor reads it: `address.lines[]`; `''` for the form itself. */
  path: string
  /** Marked required: a caller must supply it (inside an object, once that object is given). */
  required: boolean
  description?: string
  /** The registered type the field's descriptor named, shown beside it. */
  typeName?: string
  /** The JSON type, as a short label: `string`, `number`, … */
  typeLabel: string
  /** What the descriptor constrains, as short text: `≥ 1`, `email`, `at most 5 items`. */
  constraints: string[]
  /** The descriptor's default, when it has one. */
  default?: unknown
}

/** A string in a text-like input; `input` is the input's `type`. */
export interface TextField extends FieldBase {
  kind: 'text'
  input: 'text' | 'email' | 'url' | 'date'
  placeholder?: string
  /** The descriptor's `pattern`, as the input's `pattern` attribute reads it (anchored, `v` flag). */
  pattern?: string
  minLength?: number
  maxLength?: number
}

export interface NumberField extends FieldBase {
  kind: 'number'
  /** Inclusive, as an input's `min`; an exclusive bound is named in `constraints` and left to the route. */
  min?: number
  max?: number
}

export interface BooleanField extends FieldBase {
  kind: 'boolean'
}

/** An `enum`: a select of its values; the raw value is the option's index. */
export interface ChoiceField extends FieldBase {
  kind: 'choice'
  options: Array<{ label: string, value: unknown }>
}

export interface ObjectField extends FieldBase {
  kind: 'object'
  fields: Field[]
}

export interface ArrayField extends FieldBase {
  kind: 'array'
  /** The field of each item. */
  item: Field
  minItems?: number
  maxItems?: number
}

/**
 * A value typed as JSON: an object or array without a described shape, `null`, a type the manifest does
 * not define, or a type that contains itself (its second appearance).
 */
export interface JsonField extends FieldBase {
  kind: 'json'
  placeholder: string
}

export type Field = TextField | NumberField | BooleanField | ChoiceField | ObjectField | ArrayField | JsonField

/** What a visitor typed: a string per input, an object per object field, an array per array field. */
export type Raw = string | RawObject | Raw[]
export interface RawObject { [name: string]: Raw }

export interface Problem {
  /** The field's path (`''` for the form itself). */
  path: string
  message: string
}

/** Formats an input type checks for itself; the others get an example as placeholder. */
const INPUT_OF_FORMAT: Readonly<Record<string, TextField['input']>> = { email: 'email', uri: 'url', url: 'url', iri: 'url', date: 'date' }
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2025-01-31T12:00:00Z',
  time: '12:00:00Z',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.com',
  duration: 'P1D'
}

/** The form of a command: one field per param, in the manifest's order. */
export function formOf (params: Readonly<Record<string, Descriptor>> | undefined, types: TypeMap = {}): ObjectField {
  const fields = Object.entries(params ?? {}).map(([name, descriptor]) => fieldOf(name, name, descriptor, types, []))
  return { kind: 'object', name: '', path: '', required: true, typeLabel: 'object', constraints: [], fields }
}

/**
 * The field of one descriptor. A type name resolves through `types` (the field keeps the name, and the
 * reference's own description, default and `required`); `seen` holds the types being expanded above it,
 * so a type that contains itself ends in a JSON field instead of an endless form.
 */
export function fieldOf (name: string, path: string, descriptor: Descriptor, types: TypeMap, seen: readonly string[]): Field {
  const base = { name, path, required: descriptor.required === true }
  const type = typeOf(descriptor)
  if (!JSON_SCHEMA_TYPES.has(type)) {
    const definition = Object.hasOwn(types, type) ? types[type] : undefined
    if (definition === undefined || seen.includes(type)) {
      const why = definition === undefined ? 'not described by the manifest: JSON' : 'contains itself: JSON'
      return withDetails({ ...base, kind: 'json', typeName: type, typeLabel: type, constraints: [why], placeholder: '{}' }, descriptor)
    }
    const resolved: Descriptor = { ...definition, required: descriptor.required }
    if (descriptor.description !== undefined) resolved.description = descriptor.description
    if (descriptor.default !== undefined) resolved.default = descriptor.default
    const field = fieldOf(name, path, resolved, types, [...seen, type])
    // A type named by another type (an alias) keeps the name that was written here.
    field.typeName = type
    return field
  }
  return withDetails(shapeOf(base, descriptor, types, seen), descriptor)
}

/**
 * The type a descriptor names: its `type`, else the type its `$ref` names the way Surf writes it
 * (`#/types/Product` → `Product`), which readers take (docs/client.md, verifyManifest: readers are liberal).
 */
function typeOf (descriptor: Descriptor): string {
  return descriptor.type ?? String((descriptor as { $ref?: string }).$ref).replace(/^#\/types\//, '')
}

function shapeOf (base: { name: string, path: string, required: boolean }, descriptor: Descriptor, types: TypeMap, seen: readonly string[]): Field {
  const typeLabel = descriptor.type === 'integer' ? 'number' : descriptor.type
  const constraints: string[] = []
  if (Array.isArray(descriptor.enum) && descriptor.enum.length > 0) {
    const options = descriptor.enum.map((value) => ({ label: typeof value === 'string' ? value : JSON.stringify(value), value }))
    return { ...base, kind: 'choice', typeLabel, constraints, options }
  }
  switch (typeLabel) {
    case 'string':
      return textField(base, descriptor, constraints)
    case 'number':
      return numberField(base, descriptor, constraints)
    case 'boolean':
      return { ...base, kind: 'boolean', typeLabel, constraints }
    case 'object':
      if (descriptor.properties === undefined) return { ...base, kind: 'json', typeLabel, constraints: ['JSON object'], placeholder: '{}' }
      return {
        ...base,
        kind: 'object',
        typeLabel,
        constraints,
        fields: Object.entries(descriptor.properties).map(([key, property]) => fieldOf(key, joinPath(base.path, key), property, types, seen))
      }
    case 'array':
      return arrayField(base, descriptor, types, seen, constraints)
    default:
      // `null`, the one JSON type left.
      return { ...base, kind: 'json', typeLabel, constraints: ['JSON'], placeholder: 'null' }
  }
}

function textField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor, constraints: string[]): TextField {
  const field: TextField = { ...base, kind: 'text', typeLabel: 'string', constraints, input: 'text' }
  const { format, pattern, minLength, maxLength } = descriptor
  if (format !== undefined) {
    field.input = INPUT_OF_FORMAT[format] ?? 'text'
    if (Object.hasOwn(FORMAT_EXAMPLES, format)) field.placeholder = FORMAT_EXAMPLES[format]
    constraints.push(`format: ${format}`)
  }
  if (minLength !== undefined) field.minLength = minLength
  if (maxLength !== undefined) field.maxLength = maxLength
  const length = rangeText(minLength, maxLength, 'character')
  if (length !== undefined) constraints.push(length)
  if (pattern !== undefined) {
    constraints.push(`pattern: ${pattern}`)
    const attribute = htmlPattern(pattern)
    if (attribute !== undefined) field.pattern = attribute
  }
  return field
}

function numberField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor, constraints: string[]): NumberField {
  const field: NumberField = { ...base, kind: 'number', typeLabel: 'number', constraints }
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = descriptor
  if (minimum !== undefined) {
    field.min = minimum
    constraints.push(`≥ ${minimum}`)
  }
  if (exclusiveMinimum !== undefined) {
    field.min ??= exclusiveMinimum
    constraints.push(`> ${exclusiveMinimum}`)
  }
  if (maximum !== undefined) {
    field.max = maximum
    constraints.push(`≤ ${maximum}`)
  }
  if (exclusiveMaximum !== undefined) {
    field.max ??= exclusiveMaximum
    constraints.push(`< ${exclusiveMaximum}`)
  }
  return field
}

function arrayField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor, types: TypeMap, seen: readonly string[], constraints: string[]): Field {
  if (descriptor.items === undefined) return { ...base, kind: 'json', typeLabel: 'array', constraints: ['JSON array'], placeholder: '[]' }
  const item = fieldOf('', `${base.path}[]`, { ...descriptor.items, required: true }, types, seen)
  const field: ArrayField = { ...base, kind: 'array', typeLabel: 'array', constraints, item }
  const { minItems, maxItems } = descriptor
  if (minItems !== undefined) field.minItems = minItems
  if (maxItems !== undefined) field.maxItems = maxItems
  const count = rangeText(minItems, maxItems, 'item')
  if (count !== undefined) constraints.push(count)
  return field
}

/** Description and default, which every kind of field shows the same way. */
function withDetails (field: Field, descriptor: Descriptor): Field {
  if (descriptor.description !== undefined) field.description = descriptor.description
  if (descriptor.default !== undefined) {
    field.default = descriptor.default
    field.constraints.push(`default ${JSON.stringify(descriptor.default)}`)
  }
  return field
}

function rangeText (min: number | undefined, max: number | undefined, unit: string): string | undefined {
  const plural = (count: number): string => `${count} ${unit}${count === 1 ? '' : 's'}`
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${plural(min)}` : `${min} to ${plural(max)}`
  if (min !== undefined) return `at least ${plural(min)}`
  if (max !== undefined) return `at most ${plural(max)}`
  return undefined
}

function joinPath (parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`
}

/**
 * A JSON Schema `pattern` (unanchored: it may match anywhere) as an input's `pattern` attribute, which the
 * browser anchors at both ends and compiles with the `v` flag. Undefined when the browser could not
 * compile it: the route's own validation still applies.
 */
export function htmlPattern (pattern: string): string | undefined {
  const attribute = `[\\s\\S]*(?:${pattern})[\\s\\S]*`
  try {
    // eslint-disable-next-line no-new -- compiled only to learn whether the browser can compile it
    new RegExp(`^(?:${attribute})$`, 'v')
    return attribute
  } catch {
    return undefined
  }
}

/**
 * What the inputs of a field start with: `value` when given (an example's params, say), else the field's
 * default; each property of an object falls back to its own default, and an array has at least `minItems`
 * items.
 */
export function rawOf (field: Field, value?: unknown): Raw {
  const given = value === undefined ? field.default : value
  switch (field.kind) {
    case 'object': {
      const object = isPlainObject(given) ? given : {}
      const raw: RawObject = Object.create(null)
      for (const child of field.fields) raw[child.name] = rawOf(child, own(object, child.name))
      return raw
    }
    case 'array': {
      const items = Array.isArray(given) ? given.map((item) => rawOf(field.item, item)) : []
      while (items.length < (field.minItems ?? 0)) items.push(rawOf(field.item))
      return items
    }
    case 'choice': {
      const index = given === undefined ? -1 : field.options.findIndex((option) => sameJson(option.value, given))
      return index === -1 ? '' : String(index)
    }
    case 'boolean':
      return given === true || given === false ? String(given) : ''
    case 'json':
      return given === undefined ? '' : JSON.stringify(given, null, 2)
    default:
      if (given === undefined || given === null) return ''
      return typeof given === 'string' ? given : JSON.stringify(given)
  }
}

/**
 * The params of a call from what was typed. A field left empty is not sent (the route's default applies);
 * an object is sent when something inside it was typed, or when it is required and its parent is sent;
 * then each of its required fields must be given. An item added to an array is always sent.
 */
export function collectParams (form: ObjectField, raw: Raw): { params: Record<string, unknown>, problems: Problem[] } {
  const problems: Problem[] = []
  const params = collectObject(form, raw, '', problems)
  return { params, problems }
}

/** `path` is where the value is, items counted: `lines[1].sku`. */
function collectObject (field: ObjectField, raw: Raw, path: string, problems: Problem[]): Record<string, unknown> {
  const object = asObject(raw)
  const value: Record<string, unknown> = {}
  for (const child of field.fields) {
    const childRaw = own(object, child.name) ?? rawOf(child)
    const childPath = joinPath(path, child.name)
    const sentAnyway = child.required && (child.kind === 'object' || child.kind === 'array')
    if (!sentAnyway && !typed(child, childRaw)) {
      if (child.required) problems.push({ path: childPath, message: `${childPath} is required.` })
      continue
    }
    const childValue = collectGiven(child, childRaw, childPath, problems)
    if (childValue !== undefined) define(value, child.name, childValue)
  }
  return value
}

/** A required array with no item is sent empty: a visitor who removed every item meant it. */
function collectGiven (field: Field, raw: Raw, path: string, problems: Problem[]): unknown {
  switch (field.kind) {
    case 'object':
      return collectObject(field, raw, path, problems)
    case 'array':
      return asArray(raw).map((item, index) => collectItem(field.item, item, `${path}[${index}]`, problems))
    default:
      return parseScalar(field, asText(raw), path, problems)
  }
}

function collectItem (field: Field, raw: Raw, path: string, problems: Problem[]): unknown {
  if (field.kind === 'object' || field.kind === 'array') return collectGiven(field, raw, path, problems)
  if (!typed(field, raw)) {
    problems.push({ path, message: `${path} is empty: fill it in or remove the item.` })
    return null
  }
  return parseScalar(field, asText(raw), path, problems)
}

/** The value of a non-empty input; undefined, with a problem, when it cannot be read as its type. */
function parseScalar (field: Exclude<Field, ObjectField | ArrayField>, text: string, path: string, problems: Problem[]): unknown {
  switch (field.kind) {
    case 'number': {
      const number = Number(text.trim())
      if (Number.isFinite(number)) return number
      problems.push({ path, message: `${path} must be a number; got ${JSON.stringify(text)}.` })
      return undefined
    }
    case 'boolean':
      return text === 'true'
    case 'choice': {
      const option = field.options[Number(text)]
      if (option !== undefined) return option.value
      problems.push({ path, message: `${path} must be one of its listed values.` })
      return undefined
    }
    case 'json':
      try {
        return JSON.parse(text)
      } catch (error) {
        problems.push({ path, message: `${path} must be JSON: ${(error as Error).message}` })
        return undefined
      }
    default:
      return text
  }
}

/** Whether anything was typed in the field: text, a choice, or an item of an array. */
export function typed (field: Field, raw: Raw): boolean {
  switch (field.kind) {
    case 'object': {
      const object = asObject(raw)
      return field.fields.some((child) => {
        const childRaw = own(object, child.name)
        return childRaw !== undefined && typed(child, childRaw)
      })
    }
    case 'array':
      return asArray(raw).length > 0
    case 'text':
      return asText(raw) !== ''
    default:
      return asText(raw).trim() !== ''
  }
}

function asObject (raw: Raw): RawObject {
  return isPlainObject(raw) ? raw as RawObject : {}
}

function asArray (raw: Raw): Raw[] {
  return Array.isArray(raw) ? raw : []
}

function asText (raw: Raw): string {
  return typeof raw === 'string' ? raw : ''
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An own property only: `__proto__`, `constructor` and the like are ordinary names of params. */
function own<T> (object: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

function sameJson (a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** `__proto__` and the like are ordinary param names here too. */
function define (object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}
