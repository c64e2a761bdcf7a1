import { Kind, Type, type TSchema } from '@sinclair/typebox'
import { TYPE_REFERENCE_PATTERN } from './names.js'
import { jsonSchemaOf, ManifestCommandSchema, ManifestSchemaV05, ManifestSchemaV1 } from './schema.js'

/**
 * The schemas a reader checks a manifest another server wrote against (docs/client.md, verifyManifest: readers are liberal),
 * derived from the wire schema of lib/manifest/schema.ts rather than written a second time: every object
 * lets unknown keys through and requires only what the spec cannot do without, and a value the wire schema
 * pins to a literal (`auth.type: 'bearer'`, a command's `auth`) takes any value of that literal's type.
 * What is there keeps its shape: types, patterns, bounds and the maps' name patterns are the wire schema's.
 * Beside the two layouts, Surf's: layout 1.0 whose version field is `surf`, any string.
 */

/** The only fields a reader requires, by the wire schema object that holds them. */
const TOP_LEVEL_REQUIRED = ['name', 'commands', 'checksum']
const REQUIRED_BY_OBJECT = new Map<TSchema, string[]>([
  [ManifestSchemaV1, ['svc', ...TOP_LEVEL_REQUIRED]],
  [ManifestSchemaV05, ['svc', ...TOP_LEVEL_REQUIRED]],
  [ManifestCommandSchema, ['description']]
])

/** `#/types/<Name>`: how Surf's descriptors name a type of the manifest instead of a `type`. */
export const TYPE_POINTER_PATTERN = `^#/types/${TYPE_REFERENCE_PATTERN.slice(1)}`

/** The names of the descriptor objects in the wire schema's module: they take a `$ref` in place of `type`. */
const DESCRIPTORS: ReadonlySet<string> = new Set(['ManifestField', 'ManifestProperty'])

/** A descriptor names its type with `type` or with a `$ref`: said to other validators in the JSON Schema files. */
const TYPE_OR_REF = [{ required: ['type'] }, { required: ['$ref'] }]

/** Surf's own values of a command's `auth`: `'none'`, `'required'`, `'optional'`, `'hidden'`, or a boolean. */
const COMMAND_AUTH = Type.Union([Type.String(), Type.Boolean()])

/** `schema` as a reader takes it: see above. Symbols (TypeBox's kinds) are copied with every object. */
function liberal (schema: TSchema, name?: string): TSchema {
  const kind = schema[Kind] as string
  if (kind === 'Literal') return widened(schema)
  const out: TSchema = { ...schema }
  if (kind === 'Object') {
    const properties: Record<string, TSchema> = {}
    for (const [key, value] of Object.entries(schema.properties as Record<string, TSchema>)) {
      // The layout version stays the literal of its layout: it says which schema applies.
      properties[key] = key === 'svc' ? value : liberal(value)
    }
    if (schema === ManifestCommandSchema) properties.auth = Type.Optional(COMMAND_AUTH)
    out.properties = properties
    delete out.additionalProperties
    const required = REQUIRED_BY_OBJECT.get(schema) ?? []
    if (required.length > 0) out.required = required
    else delete out.required
    if (name !== undefined && DESCRIPTORS.has(name)) {
      // `$ref` right after `type`, in the order of the served descriptors.
      const { type, ...rest } = properties
      out.properties = { type, $ref: Type.Optional(Type.String({ pattern: TYPE_POINTER_PATTERN })), ...rest }
      out.anyOf = TYPE_OR_REF
    }
  } else if (kind === 'Record') {
    out.patternProperties = mapValues(schema.patternProperties as Record<string, TSchema>, (value) => liberal(value))
  } else if (kind === 'Union') {
    out.anyOf = (schema.anyOf as TSchema[]).map((member) => liberal(member))
  } else if (kind === 'Array') {
    out.items = liberal(schema.items as TSchema)
  } else if (kind === 'Import') {
    out.$defs = mapValues(schema.$defs as Record<string, TSchema>, (value, key) => liberal(value, key))
  }
  return out
}

/** A literal as the type of its value: `'bearer'` → any string, `true` → any boolean. */
function widened (literal: TSchema): TSchema {
  const type = typeof literal.const === 'boolean' ? Type.Boolean() : Type.String()
  return { ...type, ...optionality(literal) }
}

/** The `Optional` marker of a property schema, which TypeBox keeps as a symbol on the schema itself. */
function optionality (schema: TSchema): TSchema {
  const out: Record<symbol, unknown> = {}
  for (const symbol of Object.getOwnPropertySymbols(schema)) if (symbol !== Kind) out[symbol] = (schema as unknown as Record<symbol, unknown>)[symbol]
  return out as unknown as TSchema
}

function mapValues (map: Record<string, TSchema>, change: (value: TSchema, key: string) => TSchema): Record<string, TSchema> {
  const out: Record<string, TSchema> = {}
  for (const [key, value] of Object.entries(map)) out[key] = change(value, key)
  return out
}

const readerV1 = liberal(ManifestSchemaV1)
const readerV05 = liberal(ManifestSchemaV05)

/** Surf's manifest: layout 1.0 with `surf` (Surf's protocol version, any text) where `svc` is. */
const v1Properties = Object.entries(readerV1.properties as Record<string, TSchema>).filter(([key]) => key !== 'svc')
const readerSurf: TSchema = {
  ...readerV1,
  title: 'Service manifest as a reader takes it, Surf layout',
  properties: { surf: Type.String({ minLength: 1 }), ...Object.fromEntries(v1Properties) },
  required: ['surf', ...TOP_LEVEL_REQUIRED]
}

/** The reader's schema of each layout, keyed by its `svc` value, and Surf's under `surf`. */
export const readerManifestSchemas: Readonly<Record<'1.0' | '0.5.0' | 'surf', TSchema>> = Object.freeze({
  '1.0': { ...readerV1, title: 'Service manifest as a reader takes it, layout 1.0' },
  '0.5.0': { ...readerV05, title: 'Service manifest as a reader takes it, layout 0.5.0' },
  surf: readerSurf
})

/** A reader's schema of a layout (or Surf's) as a plain JSON Schema (draft-07) document, for other validators. */
export function readerManifestJsonSchema (layout: '1.0' | '0.5.0' | 'surf'): Record<string, unknown> {
  return jsonSchemaOf(readerManifestSchemas[layout])
}
