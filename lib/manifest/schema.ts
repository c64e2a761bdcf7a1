import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { DOTTED_NAME_PATTERN, TYPE_REFERENCE_PATTERN } from './names.js'

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
/** A `type` field: a JSON type or the name of a type of the manifest (`typeReferenceErrors` checks that it is one). */
const TypeName = Type.String({ pattern: TYPE_REFERENCE_PATTERN })

/** A map from names matching `pattern` to `value`, refusing any other key. */
function NamedMap<T extends TSchema> (pattern: string, value: T) {
  return Type.Record(Type.String({ pattern }), value, { additionalProperties: false })
}

/** A map from any property name to `value`. */
function FieldMap<T extends TSchema> (value: T) {
  return Type.Record(Type.String(), value)
}

/** `{ type, description? }`: a return type, an event data field or a type property. */
export const ManifestTypeRefSchema = Type.Object({
  type: TypeName,
  description: Type.Optional(Type.String())
}, { additionalProperties: false })

export const ManifestParamSchema = Type.Object({
  type: TypeName,
  required: Type.Boolean(),
  default: Type.Optional(Type.Unknown()),
  description: Type.Optional(Type.String())
}, { additionalProperties: false })

export const ManifestHintsSchema = Type.Object({
  idempotent: Type.Optional(Type.Boolean()),
  sideEffects: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

export const ManifestCommandSchema = Type.Object({
  description: Text,
  params: Type.Optional(FieldMap(ManifestParamSchema)),
  returns: Type.Optional(ManifestTypeRefSchema),
  tags: Type.Optional(Type.Array(Text)),
  hints: Type.Optional(ManifestHintsSchema),
  auth: Type.Optional(Type.Literal('required'))
}, { additionalProperties: false })

export const ManifestEventSchema = Type.Object({
  description: Text,
  data: Type.Optional(FieldMap(ManifestTypeRefSchema))
}, { additionalProperties: false })

export const ManifestChannelSchema = Type.Object({
  description: Text
}, { additionalProperties: false })

export const ManifestTypeSchema = Type.Object({
  type: TypeName,
  description: Type.Optional(Type.String()),
  properties: Type.Optional(FieldMap(ManifestTypeRefSchema))
}, { additionalProperties: false })

export const ManifestAuthSchema = Type.Object({
  type: Type.Literal('bearer'),
  description: Text
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

export type ManifestV1 = Static<typeof ManifestSchemaV1>
export type ManifestV05 = Static<typeof ManifestSchemaV05>

/** The schema of each layout, keyed by the manifest's `svc` value. */
export const manifestSchemas: Readonly<Record<'1.0' | '0.5.0', TSchema>> = Object.freeze({
  '1.0': ManifestSchemaV1,
  '0.5.0': ManifestSchemaV05
})

/** The manifest schema of a layout as a plain JSON Schema (draft-07) document, for other validators. */
export function manifestJsonSchema (layout: '1.0' | '0.5.0'): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(manifestSchemas[layout]))
  return { $schema: 'http://json-schema.org/draft-07/schema#', title: plain.title, ...plain }
}
