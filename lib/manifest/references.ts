import { JSON_SCHEMA_TYPES } from '../schema/keywords.js'
import type { Manifest } from './types.js'

/**
 * What a JSON Schema cannot say about a manifest: every `type` field names a JSON type or a type the
 * manifest defines in `types`. One line per field that does not, `"<JSON pointer>: <what is wrong>"`, in
 * the manner of the schema's own errors. Expects a manifest that matches its layout's schema.
 */
export function typeReferenceErrors (manifest: Manifest): string[] {
  const errors: string[] = []
  const check = (type: string, path: string[]): void => {
    if (!JSON_SCHEMA_TYPES.has(type) && !Object.hasOwn(manifest.types, type)) {
      errors.push(`${pointer([...path, 'type'])}: "${type}" is neither a JSON type nor a type defined in /types`)
    }
  }
  for (const [name, command] of Object.entries(manifest.commands)) {
    for (const [param, { type }] of Object.entries(command.params ?? {})) check(type, ['commands', name, 'params', param])
    if (command.returns !== undefined) check(command.returns.type, ['commands', name, 'returns'])
  }
  for (const [name, event] of Object.entries(manifest.events)) {
    for (const [field, { type }] of Object.entries(event.data ?? {})) check(type, ['events', name, 'data', field])
  }
  for (const [name, definition] of Object.entries(manifest.types)) {
    check(definition.type, ['types', name])
    for (const [property, { type }] of Object.entries(definition.properties ?? {})) check(type, ['types', name, 'properties', property])
  }
  return errors
}

/** An RFC 6901 JSON pointer. */
function pointer (path: string[]): string {
  return path.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
