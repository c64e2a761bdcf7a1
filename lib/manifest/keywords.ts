/**
 * The vocabulary of a field descriptor, each fact once: the type names a descriptor may carry, and the
 * JSON Schema keywords it copies from a field's schema. Plain data with no imports, so every reader of
 * descriptors takes it from here — the describer (`assemble/type-map.ts`), the wire schema
 * (`manifest/schema.ts`), the MCP input schemas (`mcp/manifest-tools.ts`), the drift diff
 * (`client/diff-fields.ts`) and the page's form (`ui/form-fields.ts`, bundled for browsers).
 */

/** JSON Schema's type names. A manifest serves them all but `integer`, which it maps to `number`. */
export const JSON_SCHEMA_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'])

/** The type names a manifest serves for JSON types: JSON Schema's, `integer` aside. */
export const MANIFEST_PRIMITIVES: ReadonlySet<string> = new Set([...JSON_SCHEMA_TYPES].filter((type) => type !== 'integer'))

/**
 * The type name of a field whose schema allows any JSON value (`{}`, `Type.Unknown()`, `Type.Any()`): no
 * JSON Schema type, so a reader builds its schema as `{}`.
 */
export const ANY_TYPE = 'any'

/** The type names a manifest serves for schemas that are no type of its own: the JSON types and `any`. */
export const MANIFEST_BUILT_IN_TYPES: ReadonlySet<string> = new Set([...MANIFEST_PRIMITIVES, ANY_TYPE])

/**
 * The type names a descriptor may carry without a definition under `types`, as readers take them: JSON
 * Schema's (`integer` too) and `any`.
 */
export const READER_BUILT_IN_TYPES: ReadonlySet<string> = new Set([...JSON_SCHEMA_TYPES, ANY_TYPE])

/**
 * The schema keywords a descriptor carries, in its key order (after `type` and `required`, before `items`
 * and `properties`):
 * - `kind`: the type of field the keyword constrains (`'any'`: every type);
 * - `value`: what its value is — `'json'` any JSON value, `'choices'` the non-empty list of values allowed, `'text'` a
 *   string, `'number'` a finite number, `'count'` a whole number from 0 (a length or a number of items);
 * - `tightens`: which change refuses values a caller could send before, so the drift diff calls it
 *   breaking — `'never'` (an annotation: it refuses nothing), `'narrows'` (a value of the list goes),
 *   `'changes'` (added or changed; removing it only widens), `'rises'` (a lower bound), `'falls'` (an upper
 *   bound). Adding, for a bound, breaks; removing does not.
 *
 * A keyword added here is described from route schemas, typed in the wire schema, copied into MCP input
 * schemas, compared by the drift diff and shown by the page's form (as `keyword: value` unless the form
 * renders it its own way); `npm run schema:build` then writes it into docs/schema/.
 */
export const DESCRIPTOR_KEYWORDS = [
  { key: 'default', kind: 'any', value: 'json', tightens: 'never' },
  { key: 'description', kind: 'any', value: 'text', tightens: 'never' },
  { key: 'enum', kind: 'any', value: 'choices', tightens: 'narrows' },
  { key: 'format', kind: 'string', value: 'text', tightens: 'changes' },
  { key: 'pattern', kind: 'string', value: 'text', tightens: 'changes' },
  { key: 'minimum', kind: 'number', value: 'number', tightens: 'rises' },
  { key: 'maximum', kind: 'number', value: 'number', tightens: 'falls' },
  { key: 'exclusiveMinimum', kind: 'number', value: 'number', tightens: 'rises' },
  { key: 'exclusiveMaximum', kind: 'number', value: 'number', tightens: 'falls' },
  { key: 'minLength', kind: 'string', value: 'count', tightens: 'rises' },
  { key: 'maxLength', kind: 'string', value: 'count', tightens: 'falls' },
  { key: 'minItems', kind: 'array', value: 'count', tightens: 'rises' },
  { key: 'maxItems', kind: 'array', value: 'count', tightens: 'falls' }
] as const satisfies readonly DescriptorKeyword[]

export interface DescriptorKeyword {
  key: string
  kind: 'any' | 'string' | 'number' | 'array'
  value: 'json' | 'choices' | 'text' | 'number' | 'count'
  tightens: 'never' | 'narrows' | 'changes' | 'rises' | 'falls'
}

/** A keyword of the table, by name. */
export type DescriptorKeywordName = typeof DESCRIPTOR_KEYWORDS[number]['key']

/** A keyword the describer copies as the schema declares it, once it is a value of its kind. */
export type CopiedKeyword = DescriptorKeyword & { value: 'text' | 'number' | 'count', tightens: 'changes' | 'rises' | 'falls' }

/**
 * The constraints a descriptor copies as its field's schema declares them: every keyword but the
 * annotations (`default`, `description`) and `enum`, which the describer reads its own way (a default is
 * copied as JSON, a description may be the field's own or its type's, the allowed values come from
 * `const`s too).
 */
export const COPIED_KEYWORDS: readonly CopiedKeyword[] = (DESCRIPTOR_KEYWORDS as readonly DescriptorKeyword[]).filter(isCopied)

function isCopied (keyword: DescriptorKeyword): keyword is CopiedKeyword {
  return keyword.tightens !== 'never' && keyword.tightens !== 'narrows'
}
