import { FST_SVC_INVALID_NAME, FST_SVC_MISSING_DESCRIPTION } from './errors.js'

/** Commands, events and channels: dot-separated words, each starting with a letter. */
const DOTTED_NAME = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/
/** Types: an identifier. */
const TYPE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/

export type EntryKind = 'command' | 'event' | 'channel' | 'type'

export function isDottedName (name: string): boolean {
  return DOTTED_NAME.test(name)
}

export function assertName (kind: EntryKind, name: unknown, where: string): asserts name is string {
  const pattern = kind === 'type' ? TYPE_NAME : DOTTED_NAME
  if (typeof name === 'string' && pattern.test(name)) return
  const rule = kind === 'type'
    ? 'an identifier (letters, digits, "_" or "$", not starting with a digit)'
    : 'dot-separated words of letters, digits, "_" or "-", each starting with a letter (e.g. "cart.add")'
  throw new FST_SVC_INVALID_NAME(`${kind} name ${JSON.stringify(name)} (${where}) must be ${rule}.`)
}

export function assertDescription (description: unknown, where: string): asserts description is string {
  if (typeof description === 'string' && description.trim() !== '') return
  throw new FST_SVC_MISSING_DESCRIPTION(`${where} needs a non-empty "description" string.`)
}
