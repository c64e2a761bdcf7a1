import type { ManifestChannel, ManifestEvent, ManifestType, ManifestTypeRef } from '../manifest/types.js'
import { diffEntries, eachName, type ChangeLog } from './changes.js'

type Fields = Record<string, ManifestTypeRef>

interface Retyped {
  field: string
  from: string
  to: string
}

/** How the fields of an event's `data` or a type's `properties` changed. */
interface FieldChanges {
  removed: string[]
  retyped: Retyped[]
  added: string[]
  redescribed: string[]
}

function compareFields (before?: Fields, after?: Fields): FieldChanges {
  const changes: FieldChanges = { removed: [], retyped: [], added: [], redescribed: [] }
  eachName(before, after, {
    removed: (field) => changes.removed.push(field),
    added: (field) => changes.added.push(field),
    kept: (field, old, now) => {
      if (old.type !== now.type) changes.retyped.push({ field, from: old.type, to: now.type })
      else if (old.description !== now.description) changes.redescribed.push(field)
    }
  })
  return changes
}

/** Removing or retyping a field breaks readers; adding one does not. */
function breaksReaders (changes: FieldChanges): boolean {
  return changes.removed.length > 0 || changes.retyped.length > 0
}

function fieldSummary (changes: FieldChanges, noun: string): string[] {
  const parts: string[] = []
  if (changes.removed.length > 0) parts.push(`${noun} ${changes.removed.join(', ')} removed`)
  for (const { field, from, to } of changes.retyped) parts.push(`${noun} ${field} retyped from ${from} to ${to}`)
  if (changes.added.length > 0) parts.push(`${noun} ${changes.added.join(', ')} added`)
  return parts
}

function logRedescribed (log: ChangeLog, owner: string, subject: string, fields: string[]): void {
  for (const field of fields) log.add(false, 'description.changed', `${owner}(${field})`, `${subject}: description of ${field} changed`)
}

export function diffEvents (log: ChangeLog, before: Record<string, ManifestEvent>, after: Record<string, ManifestEvent>): void {
  diffEntries(log, 'event', before, after, (name, old, now) => {
    const fields = compareFields(old.data, now.data)
    const summary = fieldSummary(fields, 'data field')
    if (summary.length > 0) log.add(breaksReaders(fields), 'event.data-changed', name, `event ${name}: ${summary.join('; ')}`)
    logRedescribed(log, name, `event ${name}`, fields.redescribed)
    if (old.description !== now.description) log.add(false, 'description.changed', name, `event ${name}: description changed`)
  })
}

export function diffChannels (log: ChangeLog, before: Record<string, ManifestChannel> = {}, after: Record<string, ManifestChannel> = {}): void {
  diffEntries(log, 'channel', before, after, (name, old, now) => {
    if (old.description !== now.description) log.add(false, 'description.changed', name, `channel ${name}: description changed`)
  })
}

export function diffTypes (log: ChangeLog, before: Record<string, ManifestType>, after: Record<string, ManifestType>): void {
  diffEntries(log, 'type', before, after, (name, old, now) => diffType(log, name, old, now))
}

function diffType (log: ChangeLog, name: string, old: ManifestType, now: ManifestType): void {
  const fields = compareFields(old.properties, now.properties)
  const retyped = old.type !== now.type
  const summary = [...(retyped ? [`is now ${now.type} instead of ${old.type}`] : []), ...fieldSummary(fields, 'property')]
  if (summary.length > 0) log.add(retyped || breaksReaders(fields), 'type.changed', name, `type ${name}: ${summary.join('; ')}`)
  logRedescribed(log, name, `type ${name}`, fields.redescribed)
  if (old.description !== now.description) log.add(false, 'description.changed', name, `type ${name}: description changed`)
}
