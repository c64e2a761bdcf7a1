import { TYPE_POINTER_PREFIX } from '../manifest/references.js'
import type { ManifestField, ManifestProperty, ReadManifest, ServedManifest } from '../manifest/types.js'

/**
 * A manifest as readers use it: a copy of one a reader has checked, with what the spec lets a server leave
 * out filled in as the spec means it (docs/client.md, verifyManifest): `events` and `types` empty maps, `required: false` on a
 * property without it, the `type` a Surf `$ref` names (`#/types/Product` → `Product`, the `$ref` kept), and
 * a Surf manifest as layout `1.0` (its `surf` kept). Everything else, unknown fields included, is copied as
 * served; a manifest of the plugin's comes out deep-equal to itself. Taking a view of a view changes nothing.
 */
export function readerView (manifest: ServedManifest | ReadManifest): ReadManifest {
  const view = JSON.parse(JSON.stringify(manifest)) as ReadManifest
  if (view.svc === undefined) view.svc = '1.0'
  view.events ??= {}
  view.types ??= {}
  for (const command of Object.values(view.commands)) {
    if (command.params !== undefined) command.params = properties(command.params)
    if (command.returns !== undefined) command.returns = field(command.returns)
  }
  for (const event of Object.values(view.events)) {
    if (event.data !== undefined) event.data = properties(event.data)
  }
  for (const name of Object.keys(view.types)) setOwn(view.types, name, field(view.types[name]))
  return view
}

/** The type a descriptor names: its `type`, else the name at the end of its `$ref` (one of them is there). */
function typeOf (descriptor: ManifestField): string {
  return descriptor.type ?? (descriptor as { $ref?: string }).$ref!.slice(TYPE_POINTER_PREFIX.length)
}

/** A descriptor with its `type` first, whether it was given or named by a `$ref`. */
function field (descriptor: ManifestField): ManifestField {
  return nested({ type: typeOf(descriptor), ...(descriptor as Partial<ManifestField>) })
}

/** A property: a descriptor that says whether it is required, `false` when it does not say. */
function property (descriptor: ManifestProperty): ManifestProperty {
  return nested({ type: typeOf(descriptor), required: descriptor.required ?? false, ...(descriptor as Partial<ManifestProperty>) }) as ManifestProperty
}

function properties (map: Record<string, ManifestProperty>): Record<string, ManifestProperty> {
  for (const name of Object.keys(map)) setOwn(map, name, property(map[name]))
  return map
}

function nested (descriptor: ManifestField): ManifestField {
  if (descriptor.items !== undefined) descriptor.items = field(descriptor.items)
  if (descriptor.properties !== undefined) descriptor.properties = properties(descriptor.properties)
  return descriptor
}

/** Sets an own entry of a map, `__proto__` included (an assignment would set the prototype instead). */
function setOwn<V> (map: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true })
}
