import type { ReadManifest, ServedManifest } from '../manifest/types.js'
import { readerView } from './reader-view.js'
import { ChangeLog, show, type ChangeKind, type ManifestDiff } from './changes.js'
import { diffCommands } from './diff-commands.js'
import { diffChannels, diffEvents, diffTypes } from './diff-entries.js'

/**
 * What changed from one manifest to the next, split into breaking and non-breaking changes. Both must be
 * valid manifests (see `verifyManifest`), as served or as a client read them: each is compared as readers
 * use it (a missing `required` is false, a `$ref` names its type, missing `events` or `types` are empty).
 * Changes come in a fixed order: service fields, then commands, events, channels and types, each by name.
 * `checksum` and `updatedAt` are not compared.
 */
export function diffManifests (served: ReadManifest | ServedManifest, next: ReadManifest | ServedManifest): ManifestDiff {
  const before = readerView(served)
  const after = readerView(next)
  const log = new ChangeLog()
  diffService(log, before, after)
  diffCommands(log, before.commands, after.commands)
  diffEvents(log, before.events, after.events)
  diffChannels(log, before.channels, after.channels)
  diffTypes(log, before.types, after.types)
  return log.result()
}

interface ServiceField {
  name: string
  read: (manifest: ReadManifest) => unknown
  kind: ChangeKind
  breaking: boolean
}

/** Top-level fields in the manifest's key order. A new base URL or auth scheme breaks every client. */
const SERVICE_FIELDS: ServiceField[] = [
  { name: 'svc', read: (m) => m.svc, kind: 'service.changed', breaking: false },
  { name: 'name', read: (m) => m.name, kind: 'service.changed', breaking: false },
  { name: 'description', read: (m) => m.description, kind: 'description.changed', breaking: false },
  { name: 'about', read: (m) => m.about, kind: 'description.changed', breaking: false },
  { name: 'version', read: (m) => m.version, kind: 'service.changed', breaking: false },
  { name: 'baseUrl', read: (m) => m.baseUrl, kind: 'service.changed', breaking: true },
  { name: 'auth.type', read: (m) => m.auth?.type, kind: 'service.changed', breaking: true },
  { name: 'auth.description', read: (m) => m.auth?.description, kind: 'description.changed', breaking: false }
]

function diffService (log: ChangeLog, before: ReadManifest, after: ReadManifest): void {
  for (const field of SERVICE_FIELDS) {
    const old = field.read(before)
    const now = field.read(after)
    if (old === now) continue
    const values = field.kind === 'description.changed' ? '' : ` from ${show(old)} to ${show(now)}`
    log.add(field.breaking, field.kind, field.name, `service ${field.name} changed${values}`)
  }
}
