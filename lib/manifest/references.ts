import { JSON_SCHEMA_TYPES } from '../schema/keywords.js'
import type { Manifest, ManifestField } from './types.js'

/**
 * What a JSON Schema cannot say about a manifest: every `type` field names a JSON type or a type the
 * manifest defines in `types`. One line per field that does not, `"<JSON pointer>: <what is wrong>"`, in
 * the manner of the schema's own errors. Expects a manifest that matches its layout's schema.
 */
export function typeReferenceErrors (manifest: Manifest): string[] {
  const errors: string[] = []
  // A descriptor's own type, then those of its items and properties, however deep.
  const check = (field: ManifestField, path: string[]): void => {
    if (!JSON_SCHEMA_TYPES.has(field.type) && !Object.hasOwn(manifest.types, field.type)) {
      errors.push(`${pointer([...path, 'type'])}: "${field.type}" is neither a JSON type nor a type defined in /types`)
    }
    if (field.items !== undefined) check(field.items, [...path, 'items'])
    for (const [property, nested] of Object.entries(field.properties ?? {})) check(nested, [...path, 'properties', property])
  }
  for (const [name, command] of Object.entries(manifest.commands)) {
    for (const [param, field] of Object.entries(command.params ?? {})) check(field, ['commands', name, 'params', param])
    if (command.returns !== undefined) check(command.returns, ['commands', name, 'returns'])
  }
  for (const [name, event] of Object.entries(manifest.events)) {
    for (const [field, descriptor] of Object.entries(event.data ?? {})) check(descriptor, ['events', name, 'data', field])
  }
  for (const [name, definition] of Object.entries(manifest.types)) check(definition, ['types', name])
  return errors
}

/** An RFC 6901 JSON pointer. */
function pointer (path: string[]): string {
  return path.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
