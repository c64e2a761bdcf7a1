import { isDeepStrictEqual } from 'node:util'
import { ANY_TYPE, DESCRIPTOR_KEYWORDS } from '../manifest/keywords.js'
import type { ManifestField, ManifestProperty } from '../manifest/types.js'
import { eachName, show, type ChangeLog } from './changes.js'

/**
 * The descriptors of a field compared in depth: its constraints (`enum`, `format`, `pattern`, the bounds),
 * its `items` and its `properties`, however deep. A field is judged as a value a client sends: whatever
 * refuses a value that was accepted before (a narrowed `enum`, a tightened bound, a new `pattern` or
 * `format`, a new required property, a type where there was `any`) breaks; the reverse (a field that becomes
 * `any`) does not. A type can be a param and a result at once, so every field is judged the same way.
 */

/** Where a field is: the change's `name`, the start of its message, and its dotted path in the manifest. */
export interface Where {
  /** `command(param)`, `event(field)`, `Type(property)`, a command, or a type: the entry the field belongs to. */
  name: string
  /** How a message names the field: `command login: param user.email`. */
  subject: string
  /** From the manifest's root: `commands.login.params.user.properties.email`. */
  path: string
}

/** Where the property `key` of the inline object at `where` is. */
function propertyOf (where: Where, key: string): Where {
  return { name: where.name, subject: `${where.subject}.${key}`, path: `${where.path}.properties.${key}` }
}

/** Where the items of the array at `where` are. */
function itemsOf (where: Where): Where {
  return { name: where.name, subject: `${where.subject}[]`, path: `${where.path}.items` }
}

/**
 * Everything but `type`, `required`, `default` and `description` of a field whose type did not change:
 * constraints, then items, then properties.
 */
export function diffDetails (log: ChangeLog, where: Where, old: ManifestField, now: ManifestField): void {
  diffOwnDetails(log, where, old, now)
  diffProperties(log, where, old.properties, now.properties)
}

/** The constraints and items of a field whose properties are compared elsewhere (a type's, by name). */
export function diffOwnDetails (log: ChangeLog, where: Where, old: ManifestField, now: ManifestField): void {
  diffConstraints(log, where, old, now)
  diffItems(log, where, old.items, now.items)
}

/**
 * A property found in both, apart from its type and description: whether it is required, its default, then
 * its details when its type is the same (those of another type are not comparable: the new type is the change).
 */
export function diffPropertyDetails (log: ChangeLog, where: Where, old: ManifestProperty, now: ManifestProperty): void {
  if (old.required !== now.required) {
    const [was, is] = now.required ? ['optional', 'required'] : ['required', 'optional']
    log.add(now.required, 'property.required-changed', where.name, `${where.subject} is now ${is} instead of ${was}`, `${where.path}.required`)
  }
  if (!isDeepStrictEqual(old.default, now.default)) {
    log.add(false, 'default.changed', where.name, `${where.subject}: default changed from ${show(old.default)} to ${show(now.default)}`, `${where.path}.default`)
  }
  if (old.type === now.type) diffDetails(log, where, old, now)
}

/** A new type breaks a caller unless it is `any`, which takes every value the old type took. */
export function retypeBreaks (now: string): boolean {
  return now !== ANY_TYPE
}

/** An added property breaks a caller when it must be supplied: required, without a default. */
export function mustBeSupplied (property: ManifestProperty): boolean {
  return property.required && property.default === undefined
}

function diffProperties (log: ChangeLog, where: Where, before?: Record<string, ManifestProperty>, after?: Record<string, ManifestProperty>): void {
  eachName(before, after, {
    removed: (key) => {
      const at = propertyOf(where, key)
      log.add(true, 'property.removed', where.name, `${at.subject} was removed`, at.path)
    },
    added: (key, now) => {
      const at = propertyOf(where, key)
      const what = mustBeSupplied(now) ? 'required property' : now.required ? 'required property with a default' : 'optional property'
      log.add(mustBeSupplied(now), 'property.added', where.name, `${where.subject}: ${what} ${key} was added`, at.path)
    },
    kept: (key, old, now) => {
      const at = propertyOf(where, key)
      if (old.type !== now.type) log.add(retypeBreaks(now.type), 'field.type-changed', where.name, `${at.subject} is now ${now.type} instead of ${old.type}`, `${at.path}.type`)
      if (old.description !== now.description) log.add(false, 'description.changed', where.name, `${at.subject}: description changed`, `${at.path}.description`)
      diffPropertyDetails(log, at, old, now)
    }
  })
}

/** Items declared where there were none narrow the array; items that go widen it. */
function diffItems (log: ChangeLog, where: Where, old?: ManifestField, now?: ManifestField): void {
  const at = itemsOf(where)
  if (old === undefined || now === undefined || old.type !== now.type) {
    if (old?.type === now?.type) return
    log.add(now !== undefined && retypeBreaks(now.type), 'field.type-changed', where.name, `${at.subject} is now ${now?.type ?? 'anything'} instead of ${old?.type ?? 'anything'}`, `${at.path}.type`)
    return
  }
  if (old.description !== now.description) log.add(false, 'description.changed', where.name, `${at.subject}: description changed`, `${at.path}.description`)
  diffDetails(log, at, old, now)
}

/** The constraints of a field, each as the keyword table says a change of it tightens; annotations are compared elsewhere. */
function diffConstraints (log: ChangeLog, where: Where, old: ManifestField, now: ManifestField): void {
  for (const { key, tightens } of DESCRIPTOR_KEYWORDS) {
    if (tightens === 'never') continue
    if (tightens === 'narrows') diffEnum(log, where, old.enum, now.enum)
    else if (tightens === 'changes') diffChanged(log, where, key, old[key], now[key])
    else diffBound(log, where, key, tightens, old[key], now[key])
  }
}

/** A new or another format or pattern can refuse values the old one let through; dropping one cannot. */
function diffChanged (log: ChangeLog, where: Where, key: string, was: unknown, is: unknown): void {
  if (was === is) return
  const what = was === undefined ? `${show(is)} added` : is === undefined ? `${show(was)} removed` : `changed from ${show(was)} to ${show(is)}`
  log.add(is !== undefined, 'constraint.changed', where.name, `${where.subject}: ${key} ${what}`, `${where.path}.${key}`)
}

/** A bound that refuses more values when it rises (`minimum`) or when it falls (`maximum`); a new one breaks. */
function diffBound (log: ChangeLog, where: Where, key: string, tightens: 'rises' | 'falls', was?: number, is?: number): void {
  if (was === is) return
  let what: string
  let breaking: boolean
  if (was === undefined) {
    what = `${show(is)} added`
    breaking = true
  } else if (is === undefined) {
    what = `${show(was)} removed`
    breaking = false
  } else {
    breaking = tightens === 'rises' ? is > was : is < was
    what = `${is > was ? 'raised' : 'lowered'} from ${show(was)} to ${show(is)}`
  }
  log.add(breaking, 'constraint.changed', where.name, `${where.subject}: ${key} ${what}`, `${where.path}.${key}`)
}

/** Values compared as a set, by value: one that goes narrows the enum, as does an enum where there was none. */
function diffEnum (log: ChangeLog, where: Where, old?: unknown[], now?: unknown[]): void {
  if (isDeepStrictEqual(old, now)) return
  const message = (what: string): string => `${where.subject}: enum ${what}`
  const path = `${where.path}.enum`
  if (old === undefined || now === undefined) {
    const what = old === undefined ? `${show(now)} added` : `${show(old)} removed`
    log.add(old === undefined, 'constraint.changed', where.name, message(what), path)
    return
  }
  const removed = old.filter((value) => !now.some((other) => isDeepStrictEqual(value, other)))
  const added = now.filter((value) => !old.some((other) => isDeepStrictEqual(value, other)))
  // Only the order changed: the same values are allowed.
  if (removed.length === 0 && added.length === 0) return
  const parts = [removed.length > 0 && `narrowed: ${show(removed)} removed`, added.length > 0 && `${removed.length > 0 ? '' : 'widened: '}${show(added)} added`]
  log.add(removed.length > 0, 'constraint.changed', where.name, message(parts.filter(Boolean).join(', ')), path)
}
