import type { ManifestChannel, ManifestEvent, ManifestProperty, ManifestType } from '../manifest/types.js'
import { diffEntries, eachName, type ChangeLog } from './changes.js'
import { diffOwnDetails, diffPropertyDetails, mustBeSupplied, retypeBreaks, type Where } from './diff-fields.js'

type Fields = Record<string, ManifestProperty>

interface Retyped {
  field: string
  from: string
  to: string
}

/** How the fields of an event's `data` or a type's `properties` changed. */
interface FieldChanges {
  removed: string[]
  retyped: Retyped[]
  /** Added fields a caller must supply (required, without a default). */
  addedRequired: string[]
  added: string[]
  redescribed: string[]
  /** Fields found in both, compared in depth afterwards. */
  kept: Array<[field: string, old: ManifestProperty, now: ManifestProperty]>
}

function compareFields (before?: Fields, after?: Fields): FieldChanges {
  const changes: FieldChanges = { removed: [], retyped: [], addedRequired: [], added: [], redescribed: [], kept: [] }
  eachName(before, after, {
    removed: (field) => changes.removed.push(field),
    added: (field, now) => (mustBeSupplied(now) ? changes.addedRequired : changes.added).push(field),
    kept: (field, old, now) => {
      if (old.type !== now.type) changes.retyped.push({ field, from: old.type, to: now.type })
      else if (old.description !== now.description) changes.redescribed.push(field)
      changes.kept.push([field, old, now])
    }
  })
  return changes
}

/** The fields found in both, in depth: required, default, constraints, items, nested properties. */
function diffKept (log: ChangeLog, changes: FieldChanges, where: (field: string) => Where): void {
  for (const [field, old, now] of changes.kept) diffPropertyDetails(log, where(field), old, now)
}

/**
 * Removing or retyping a field (to `any` too) breaks readers; adding one does not. (An event is only read, so even a new
 * required data field is not breaking; a type can be a param, where one is: see `diffType`.)
 */
function breaksReaders (changes: FieldChanges): boolean {
  return changes.removed.length > 0 || changes.retyped.length > 0
}

function fieldSummary (changes: FieldChanges, noun: string): string[] {
  const parts: string[] = []
  if (changes.removed.length > 0) parts.push(`${noun} ${changes.removed.join(', ')} removed`)
  for (const { field, from, to } of changes.retyped) parts.push(`${noun} ${field} retyped from ${from} to ${to}`)
  if (changes.addedRequired.length > 0) parts.push(`required ${noun} ${changes.addedRequired.join(', ')} added`)
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
    diffKept(log, fields, (field) => ({ name: `${name}(${field})`, subject: `event ${name}: data field ${field}`, path: `events.${name}.data.${field}` }))
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
  // A type can be the type of a param: a property its callers must now supply breaks them, as does a new
  // type, unless it is `any`.
  const breaking = (retyped && retypeBreaks(now.type)) || fields.removed.length > 0 ||
    fields.retyped.some(({ to }) => retypeBreaks(to)) || fields.addedRequired.length > 0
  if (summary.length > 0) log.add(breaking, 'type.changed', name, `type ${name}: ${summary.join('; ')}`)
  logRedescribed(log, name, `type ${name}`, fields.redescribed)
  if (!retyped) diffOwnDetails(log, { name, subject: `type ${name}`, path: `types.${name}` }, old, now)
  diffKept(log, fields, (field) => ({ name: `${name}(${field})`, subject: `type ${name}: property ${field}`, path: `types.${name}.properties.${field}` }))
  if (old.description !== now.description) log.add(false, 'description.changed', name, `type ${name}: description changed`)
}
