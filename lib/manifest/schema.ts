import { Type, type TOptional, type TSchema } from '@sinclair/typebox'
import { DESCRIPTOR_KEYWORDS } from './keywords.js'
import { AUTH_SCHEME_PATTERN, DOTTED_NAME_PATTERN, TYPE_REFERENCE_PATTERN } from './names.js'

/**
 * The served manifest of each layout as TypeBox schemas: the single source of the wire format. The TypeScript
 * types of lib/manifest/types.ts are derived from them, and every object whose shape the design fixes refuses
 * unknown keys. `docs/schema/*.json` holds the same
 * schemas as JSON Schema files, written by `npm run schema:build`.
 */
const SHA256_HEX = '^[0-9a-f]{64}$'
/** `Date#toISOString()`: UTC with milliseconds. */
const ISO_UTC_MILLIS = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$'
const HTTP_URL = '^https?://\\S+$'

const Text = Type.String({ minLength: 1 })
/** A length or a count: `minLength`, `maxItems`, … */
const Count = Type.Integer({ minimum: 0 })
/**
 * A `type` field: a JSON type, `any` (any JSON value; new in 0.3) or the name of a type of the manifest
 * (`typeReferenceErrors` checks that it is one of them).
 */
const TypeName = Type.String({
  pattern: TYPE_REFERENCE_PATTERN,
  description: 'string, number, boolean, array, object, null; any for a field that takes any JSON value; or the name of a type under /types.'
})

/** A map from names matching `pattern` to `value`, refusing any other key. */
function NamedMap<T extends TSchema> (pattern: string, value: T) {
  return Type.Record(Type.String({ pattern }), value, { additionalProperties: false })
}

/** A map from any property name to `value`. */
function FieldMap<T extends TSchema> (value: T) {
  return Type.Record(Type.String(), value)
}

/** The TypeBox schema of each kind of keyword value of the table in lib/manifest/keywords.ts. */
const KEYWORD_VALUES = {
  json: Type.Unknown(),
  choices: Type.Array(Type.Unknown(), { minItems: 1 }),
  text: Type.String(),
  number: Type.Number(),
  count: Count
}
type KeywordValues = typeof KEYWORD_VALUES
type KeywordSchemas = { [K in typeof DESCRIPTOR_KEYWORDS[number] as K['key']]: TOptional<KeywordValues[K['value']]> }

/**
 * What a field's schema declares, in this key order after `type` (and `required`, on properties): what a
 * caller needs to build a valid value from the manifest alone. The keywords come from the table of
 * lib/manifest/keywords.ts, in its order; `items` and `properties` nest descriptors.
 */
const descriptorKeywords = {
  ...Object.fromEntries(DESCRIPTOR_KEYWORDS.map(({ key, value }) => [key, Type.Optional(KEYWORD_VALUES[value])])) as KeywordSchemas,
  items: Type.Optional(Type.Ref('ManifestField')),
  properties: Type.Optional(FieldMap(Type.Ref('ManifestProperty')))
}

/**
 * The two descriptors, each nesting the other: a field (a command's `returns`, an `items`, a type's
 * definition) and a property of an object (a param, an event data field, a property of an inline object or
 * of a type), which also says whether it is `required`.
 */
const DESCRIPTOR_NAMES: ReadonlySet<string> = new Set(['ManifestField', 'ManifestProperty'])
const Descriptors = Type.Module({
  ManifestField: Type.Object({ type: TypeName, ...descriptorKeywords }, { additionalProperties: false }),
  ManifestProperty: Type.Object({ type: TypeName, required: Type.Boolean(), ...descriptorKeywords }, { additionalProperties: false })
})

/** A field descriptor without `required`: `returns`, an `items`, a type's definition. */
export const ManifestFieldSchema = Descriptors.Import('ManifestField')
/** A property descriptor: a param, an event data field, a property of an object; `required` always there. */
export const ManifestPropertySchema = Descriptors.Import('ManifestProperty')
/** The names the descriptors had before they nested: a return type and a param. */
export const ManifestTypeRefSchema = ManifestFieldSchema
export const ManifestParamSchema = ManifestPropertySchema

export const ManifestExampleSchema = Type.Object({
  title: Type.Optional(Text),
  params: FieldMap(Type.Unknown()),
  result: Type.Optional(Type.Unknown())
}, { additionalProperties: false })

export const ManifestHintsSchema = Type.Object({
  idempotent: Type.Optional(Type.Boolean()),
  sideEffects: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** Surf's `rateLimit`: how many requests a caller may make in each window of milliseconds. */
export const ManifestRateLimitSchema = Type.Object({
  maxRequests: Count,
  windowMs: Count
}, { additionalProperties: false })

/**
 * Surf's `paginated` (§8) when a setting is not Surf's default (cursor style, 20 and 100 items, the result's
 * `items`, `nextCursor` and `total`): the style and limits, and the result's field names that differ.
 */
export const ManifestPaginationSchema = Type.Object({
  style: Type.Union([Type.Literal('cursor'), Type.Literal('offset')]),
  defaultLimit: Type.Integer({ minimum: 1 }),
  maxLimit: Type.Integer({ minimum: 1 }),
  items: Type.Optional(Text),
  next: Type.Optional(Text),
  total: Type.Optional(Text)
}, { additionalProperties: false })

export const ManifestCommandSchema = Type.Object({
  description: Text,
  params: Type.Optional(FieldMap(ManifestParamSchema)),
  returns: Type.Optional(ManifestFieldSchema),
  tags: Type.Optional(Type.Array(Text)),
  hints: Type.Optional(ManifestHintsSchema),
  stream: Type.Optional(Type.Literal(true)),
  auth: Type.Optional(Type.Union([Type.Literal('required'), Type.Literal('optional')])),
  requiredScopes: Type.Optional(Type.Array(Type.String({ pattern: '^\\S+$' }))),
  rateLimit: Type.Optional(ManifestRateLimitSchema),
  paginated: Type.Optional(Type.Union([Type.Literal(true), ManifestPaginationSchema])),
  examples: Type.Optional(Type.Array(ManifestExampleSchema)),
  deprecated: Type.Optional(Type.Literal(true))
}, { additionalProperties: false })

export const ManifestEventSchema = Type.Object({
  description: Text,
  data: Type.Optional(FieldMap(ManifestPropertySchema))
}, { additionalProperties: false })

export const ManifestChannelSchema = Type.Object({
  description: Text
}, { additionalProperties: false })

/** A type's definition: a field descriptor (`properties` for an object type, `items` for an array type). */
export const ManifestTypeSchema = ManifestFieldSchema

export const ManifestAuthSchema = Type.Object({
  type: Type.Literal('bearer'),
  description: Text,
  /** The word before the token in `Authorization` when it is not `Bearer` (e.g. `Token`). */
  scheme: Type.Optional(Type.String({ pattern: AUTH_SCHEME_PATTERN }))
}, { additionalProperties: false })

const commands = NamedMap(DOTTED_NAME_PATTERN, ManifestCommandSchema)
const events = NamedMap(DOTTED_NAME_PATTERN, ManifestEventSchema)
const types = NamedMap(TYPE_REFERENCE_PATTERN, ManifestTypeSchema)
const checksum = Type.String({ pattern: SHA256_HEX, description: 'Lowercase hex SHA-256 of the RFC 8785 canonical JSON of commands.' })
const updatedAt = Type.String({ pattern: ISO_UTC_MILLIS, description: 'ISO 8601, UTC, milliseconds.' })

/** Layout `1.0`: no `about`, no `channels`. */
export const ManifestSchemaV1 = Type.Object({
  svc: Type.Literal('1.0'),
  name: Text,
  description: Text,
  version: Text,
  baseUrl: Type.String({ pattern: HTTP_URL }),
  auth: Type.Optional(ManifestAuthSchema),
  commands,
  events,
  types,
  checksum,
  updatedAt
}, { additionalProperties: false, title: 'Service manifest, layout 1.0' })

/** Layout `0.5.0`: `about` when configured, `channels` always. */
export const ManifestSchemaV05 = Type.Object({
  svc: Type.Literal('0.5.0'),
  name: Text,
  description: Text,
  about: Type.Optional(Type.String()),
  version: Text,
  baseUrl: Type.String({ pattern: HTTP_URL }),
  auth: Type.Optional(ManifestAuthSchema),
  commands,
  events,
  channels: NamedMap(DOTTED_NAME_PATTERN, ManifestChannelSchema),
  types,
  checksum,
  updatedAt
}, { additionalProperties: false, title: 'Service manifest, layout 0.5.0' })

/** The schema of each layout, keyed by the manifest's `svc` value. */
export const manifestSchemas: Readonly<Record<'1.0' | '0.5.0', TSchema>> = Object.freeze({
  '1.0': ManifestSchemaV1,
  '0.5.0': ManifestSchemaV05
})

/**
 * The manifest schema of a layout as a plain JSON Schema (draft-07) document, for other validators. The
 * descriptors, which TypeBox repeats with their `$defs` wherever they are used, are written once under
 * `definitions` and referred to as `#/definitions/<name>`.
 */
export function manifestJsonSchema (layout: '1.0' | '0.5.0'): Record<string, unknown> {
  return jsonSchemaOf(manifestSchemas[layout])
}

/** A manifest schema of lib/manifest as a plain JSON Schema (draft-07) document, descriptors under `definitions`. */
export function jsonSchemaOf (schema: TSchema): Record<string, unknown> {
  const definitions: Record<string, unknown> = {}
  const plain = hoistDefinitions(JSON.parse(JSON.stringify(schema)), definitions) as Record<string, unknown>
  return { $schema: 'http://json-schema.org/draft-07/schema#', title: plain.title, ...plain, definitions }
}

/** `node` with every `{ $defs, $ref }` of the descriptors' module replaced by a `$ref` into `definitions`. */
function hoistDefinitions (node: unknown, definitions: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistDefinitions(item, definitions))
  if (node === null || typeof node !== 'object') return node
  const { $defs, $ref } = node as { $defs?: Record<string, Record<string, unknown>>, $ref?: unknown }
  if (typeof $ref === 'string' && DESCRIPTOR_NAMES.has($ref)) {
    for (const [name, { $id, ...definition }] of Object.entries($defs ?? {})) {
      if (Object.hasOwn(definitions, name)) continue
      definitions[name] = true
      definitions[name] = hoistDefinitions(definition, definitions)
    }
    return { $ref: `#/definitions/${$ref}` }
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = hoistDefinitions(value, definitions)
  return out
}
