import { READER_BUILT_IN_TYPES } from './keywords.js'
import type { Manifest, ManifestField } from './types.js'

/** The maps of a manifest that hold descriptors; a reader's manifest may lack `events` and `types`. */
export interface DescribedMaps {
  commands: Manifest['commands']
  events?: Manifest['events']
  types?: Manifest['types']
}

/**
 * What a JSON Schema cannot say about a manifest: every descriptor names its type, by a `type` that is a
 * JSON type, `any`, or a type the manifest defines in `types`, or (Surf's way, which readers take) by a `$ref`
 * `#/types/<Name>` to such a type. One line per field that does not, `"<JSON pointer>: <what is wrong>"`,
 * in the manner of the schema's own errors. Expects a manifest that matches its layout's schema.
 */
export function typeReferenceErrors (manifest: DescribedMaps): string[] {
  const errors: string[] = []
  const types = manifest.types ?? {}
  // A descriptor's own type, then those of its items and properties, however deep.
  const check = (field: ManifestField, path: string[]): void => {
    const ref = (field as { $ref?: string }).$ref
    if (field.type === undefined && ref === undefined) errors.push(`${pointer(path)}: expected a type or a $ref`)
    if (field.type !== undefined && !READER_BUILT_IN_TYPES.has(field.type) && !Object.hasOwn(types, field.type)) {
      errors.push(`${pointer([...path, 'type'])}: "${field.type}" is neither a JSON type nor a type defined in /types`)
    }
    if (ref !== undefined && !Object.hasOwn(types, ref.slice(TYPE_POINTER_PREFIX.length))) {
      errors.push(`${pointer([...path, '$ref'])}: "${ref}" names no type defined in /types`)
    }
    if (field.items !== undefined) check(field.items, [...path, 'items'])
    for (const [property, nested] of Object.entries(field.properties ?? {})) check(nested, [...path, 'properties', property])
  }
  for (const [name, command] of Object.entries(manifest.commands)) {
    for (const [param, field] of Object.entries(command.params ?? {})) check(field, ['commands', name, 'params', param])
    if (command.returns !== undefined) check(command.returns, ['commands', name, 'returns'])
  }
  for (const [name, event] of Object.entries(manifest.events ?? {})) {
    for (const [field, descriptor] of Object.entries(event.data ?? {})) check(descriptor, ['events', name, 'data', field])
  }
  for (const [name, definition] of Object.entries(types)) check(definition, ['types', name])
  return errors
}

/** How a `$ref` of a descriptor starts: `#/types/`, then the type's name. */
export const TYPE_POINTER_PREFIX = '#/types/'

/** An RFC 6901 JSON pointer. */
function pointer (path: string[]): string {
  return path.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
