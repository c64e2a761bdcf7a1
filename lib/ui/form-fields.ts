/*
 * The human page's forms, without a DOM: a command's params (the manifest's field descriptors,
 * docs/manifest.md) become a tree of fields the page renders; lib/ui/form-params.ts turns what a visitor
 * typed into the params of the call. Pure, so it runs in Node's tests as in the browser. What it imports of the package at run time
 * is plain data and pure functions without imports of their own (the wire format's keyword table and type
 * names), which the page's bundle takes in.
 */
import { ANY_TYPE, DESCRIPTOR_KEYWORDS, JSON_SCHEMA_TYPES, type DescriptorKeywordName } from '../manifest/keywords.js'
import type { ManifestField } from '../manifest/types.js'
import { ownValue } from '../util/own-key.js'

/**
 * A field descriptor of the manifest: a param, a property, an array's items, a type. The wire format's own
 * type, with `required` where it is given.
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
 * A value typed as JSON: a field of type `any` (its schema allows any JSON value), an object or array
 * without a described shape, `null`, a type the manifest does not define, or a type that contains itself
 * (its second appearance).
 */
export interface JsonField extends FieldBase {
  kind: 'json'
  placeholder: string
}

export type Field = TextField | NumberField | BooleanField | ChoiceField | ObjectField | ArrayField | JsonField

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
  if (!JSON_SCHEMA_TYPES.has(type) && type !== ANY_TYPE) {
    const definition = ownValue(types, type)
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
      return textField(base, descriptor)
    case 'number':
      return numberField(base, descriptor)
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
      return arrayField(base, descriptor, types, seen)
    case ANY_TYPE:
      return { ...base, kind: 'json', typeLabel, constraints: ['any JSON value'], placeholder: '"text", 42, true, null, [] or {}' }
    default:
      // `null`, the one JSON type left.
      return { ...base, kind: 'json', typeLabel, constraints: ['JSON'], placeholder: 'null' }
  }
}

function textField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor): TextField {
  const field: TextField = { ...base, kind: 'text', typeLabel: 'string', constraints: constraintsOf(descriptor, 'string'), input: 'text' }
  const { format, pattern, minLength, maxLength } = descriptor
  if (format !== undefined) {
    field.input = INPUT_OF_FORMAT[format] ?? 'text'
    if (Object.hasOwn(FORMAT_EXAMPLES, format)) field.placeholder = FORMAT_EXAMPLES[format]
  }
  if (minLength !== undefined) field.minLength = minLength
  if (maxLength !== undefined) field.maxLength = maxLength
  if (pattern !== undefined) {
    const attribute = htmlPattern(pattern)
    if (attribute !== undefined) field.pattern = attribute
  }
  return field
}

/** An exclusive bound is also the input's `min` or `max` when there is no inclusive one (the route checks the rest). */
function numberField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor): NumberField {
  const field: NumberField = { ...base, kind: 'number', typeLabel: 'number', constraints: constraintsOf(descriptor, 'number') }
  const min = descriptor.minimum ?? descriptor.exclusiveMinimum
  const max = descriptor.maximum ?? descriptor.exclusiveMaximum
  if (min !== undefined) field.min = min
  if (max !== undefined) field.max = max
  return field
}

function arrayField (base: { name: string, path: string, required: boolean }, descriptor: Descriptor, types: TypeMap, seen: readonly string[]): Field {
  if (descriptor.items === undefined) return { ...base, kind: 'json', typeLabel: 'array', constraints: ['JSON array'], placeholder: '[]' }
  const item = fieldOf('', `${base.path}[]`, { ...descriptor.items, required: true }, types, seen)
  const field: ArrayField = { ...base, kind: 'array', typeLabel: 'array', constraints: constraintsOf(descriptor, 'array'), item }
  const { minItems, maxItems } = descriptor
  if (minItems !== undefined) field.minItems = minItems
  if (maxItems !== undefined) field.maxItems = maxItems
  return field
}

/** How a bound reads beside a field; any other keyword reads `keyword: value` (`format: email`). */
const PHRASES: Partial<Record<DescriptorKeywordName, string>> = { minimum: '≥', exclusiveMinimum: '>', maximum: '≤', exclusiveMaximum: '<' }

/** Counts that read as one range (`2 to 8 characters`): the lower keyword, the upper one, what is counted. */
const RANGES: ReadonlyArray<{ min: DescriptorKeywordName, max: DescriptorKeywordName, unit: string }> = [
  { min: 'minLength', max: 'maxLength', unit: 'character' },
  { min: 'minItems', max: 'maxItems', unit: 'item' }
]

/**
 * What a descriptor constrains of a field of `kind` (`string`, `number`, `array`), as short texts in the
 * order of the keyword table (lib/manifest/keywords.ts), so a keyword added there shows here too. The
 * keywords of every kind (`default`, `description`, `enum`) are shown their own way.
 */
function constraintsOf (descriptor: Descriptor, kind: string): string[] {
  const texts: string[] = []
  for (const { key, kind: of } of DESCRIPTOR_KEYWORDS) {
    if (of !== kind) continue
    const range = RANGES.find(({ min, max }) => key === min || key === max)
    if (range !== undefined) {
      const text = key === range.min ? rangeText(descriptor[range.min] as number | undefined, descriptor[range.max] as number | undefined, range.unit) : undefined
      if (text !== undefined) texts.push(text)
      continue
    }
    const value = descriptor[key]
    if (value === undefined) continue
    const phrase = PHRASES[key]
    texts.push(phrase === undefined ? `${key}: ${String(value)}` : `${phrase} ${String(value)}`)
  }
  return texts
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

/** The path of the property `key` of the field at `parent`: `address.lines`. */
export function joinPath (parent: string, key: string): string {
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
