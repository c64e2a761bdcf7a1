import { describeValue } from '../util/describe.js'
import { FST_SVC_INVALID_NAME, FST_SVC_INVALID_ROUTE_OPTION, FST_SVC_MISSING_DESCRIPTION } from '../errors.js'
import { DOTTED_NAME, TYPE_NAME } from '../manifest/names.js'

export type EntryKind = 'command' | 'event' | 'channel' | 'type'

export function assertName (kind: EntryKind, name: unknown, where: string): asserts name is string {
  const pattern = kind === 'type' ? TYPE_NAME : DOTTED_NAME
  if (typeof name === 'string' && pattern.test(name)) return
  const rule = kind === 'type'
    ? 'an identifier (letters, digits, "_" or "$", not starting with a digit)'
    : 'dot-separated words of letters, digits, "_" or "-", each starting with a letter (e.g. "cart.add")'
  throw new FST_SVC_INVALID_NAME(`${kind} name ${describeValue(name)} (${where}) must be ${rule}.`)
}

/** A description the manifest can serve: a string with more than white space. */
export function isDescription (description: unknown): description is string {
  return typeof description === 'string' && description.trim() !== ''
}

export function assertDescription (description: unknown, where: string): asserts description is string {
  if (isDescription(description)) return
  throw new FST_SVC_MISSING_DESCRIPTION(`${where} needs a non-empty "description" string.`)
}

/** Refuses a field of the `svc` route option. */
export function invalid (route: string, field: string, expected: string, actual: unknown): never {
  throw new FST_SVC_INVALID_ROUTE_OPTION(`route ${route}: ${field} must be ${expected}; got ${describeValue(actual)}.`)
}
