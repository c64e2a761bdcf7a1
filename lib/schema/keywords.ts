/**
 * What the plugin knows of JSON Schema's vocabulary, each fact once: the keywords that hold subschemas, and
 * how deep a schema or a value may nest. The type names, which descriptors carry too, are the wire format's
 * (lib/manifest/keywords.ts).
 */

/**
 * How many levels a schema, or a value in one, may nest. Real schemas nest a handful; one that contains
 * itself never ends, and is refused at this depth with an error naming the field, rather than by the stack.
 * Clients parse what is served, so the limit also keeps their parsers far from theirs.
 */
export const MAX_DEPTH = 64

/**
 * Keywords whose value maps names to schemas. `dependencies` (draft-07) may also map a name to a list of
 * property names.
 */
export const SUBSCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies'])

/** Keywords whose value is a list of schemas. */
export const SUBSCHEMA_LISTS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems'])

/** Keywords whose value is one schema (`items` may also be a list, in the older drafts). */
export const SUBSCHEMA_VALUES: ReadonlySet<string> = new Set([
  'items', 'not', 'if', 'then', 'else', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'
])
