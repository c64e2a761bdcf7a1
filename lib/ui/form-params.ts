/*
 * What a visitor typed into a form of lib/ui/form-fields.ts (a tree of raw strings of the fields' shape)
 * becomes the params of the call, and what the inputs start with comes from a field's default or an
 * example. Pure, so it runs in Node's tests as in the browser.
 */
import { isPlainObject } from '../util/objects.js'
import { ownValue, setOwn } from '../util/own-key.js'
import { joinPath, type ArrayField, type Field, type JsonField, type ObjectField } from './form-fields.js'

/** What a visitor typed: a string per input, an object per object field, an array per array field. */
export type Raw = string | RawObject | Raw[]
export interface RawObject { [name: string]: Raw }

export interface Problem {
  /** The field's path (`''` for the form itself). */
  path: string
  message: string
}

/**
 * What the inputs of a field start with: `value` when given (an example's params, say), else the field's
 * default; each property of an object falls back to its own default, and an array has at least `minItems`
 * items.
 */
export function rawOf (field: Field, value?: unknown): Raw {
  const given = value === undefined ? field.default : value
  switch (field.kind) {
    case 'object': {
      const object = isPlainObject(given) ? given : {}
      const raw: RawObject = Object.create(null)
      for (const child of field.fields) raw[child.name] = rawOf(child, ownValue(object, child.name))
      return raw
    }
    case 'array': {
      const items = Array.isArray(given) ? given.map((item) => rawOf(field.item, item)) : []
      while (items.length < (field.minItems ?? 0)) items.push(rawOf(field.item))
      return items
    }
    case 'choice': {
      const index = given === undefined ? -1 : field.options.findIndex((option) => sameJson(option.value, given))
      return index === -1 ? '' : String(index)
    }
    case 'boolean':
      return given === true || given === false ? String(given) : ''
    case 'json':
      return given === undefined ? '' : JSON.stringify(given, null, 2)
    default:
      if (given === undefined || given === null) return ''
      return typeof given === 'string' ? given : JSON.stringify(given)
  }
}

/**
 * The params of a call from what was typed. A field left empty is not sent (the route's default applies);
 * an object is sent when something inside it was typed, or when it is required and its parent is sent;
 * then each of its required fields must be given. An item added to an array is always sent.
 */
export function collectParams (form: ObjectField, raw: Raw): { params: Record<string, unknown>, problems: Problem[] } {
  const problems: Problem[] = []
  const params = collectObject(form, raw, '', problems)
  return { params, problems }
}

/** `path` is where the value is, items counted: `lines[1].sku`. */
function collectObject (field: ObjectField, raw: Raw, path: string, problems: Problem[]): Record<string, unknown> {
  const object = asObject(raw)
  const value: Record<string, unknown> = {}
  for (const child of field.fields) {
    const childRaw = ownValue(object, child.name) ?? rawOf(child)
    const childPath = joinPath(path, child.name)
    const sentAnyway = child.required && (child.kind === 'object' || child.kind === 'array')
    if (!sentAnyway && !typed(child, childRaw)) {
      if (child.required) problems.push({ path: childPath, message: `${childPath} is required.` })
      continue
    }
    const childValue = collectGiven(child, childRaw, childPath, problems)
    if (childValue !== undefined) setOwn(value, child.name, childValue)
  }
  return value
}

/** A required array with no item is sent empty: a visitor who removed every item meant it. */
function collectGiven (field: Field, raw: Raw, path: string, problems: Problem[]): unknown {
  switch (field.kind) {
    case 'object':
      return collectObject(field, raw, path, problems)
    case 'array':
      return asArray(raw).map((item, index) => collectItem(field.item, item, `${path}[${index}]`, problems))
    default:
      return parseScalar(field, asText(raw), path, problems)
  }
}

function collectItem (field: Field, raw: Raw, path: string, problems: Problem[]): unknown {
  if (field.kind === 'object' || field.kind === 'array') return collectGiven(field, raw, path, problems)
  if (!typed(field, raw)) {
    problems.push({ path, message: `${path} is empty: fill it in or remove the item.` })
    return null
  }
  return parseScalar(field, asText(raw), path, problems)
}

/** The value of a non-empty input; undefined, with a problem, when it cannot be read as its type. */
function parseScalar (field: Exclude<Field, ObjectField | ArrayField>, text: string, path: string, problems: Problem[]): unknown {
  switch (field.kind) {
    case 'number': {
      const number = Number(text.trim())
      if (Number.isFinite(number)) return number
      problems.push({ path, message: `${path} must be a number; got ${JSON.stringify(text)}.` })
      return undefined
    }
    case 'boolean':
      return text === 'true'
    case 'choice': {
      const option = field.options[Number(text)]
      if (option !== undefined) return option.value
      problems.push({ path, message: `${path} must be one of its listed values.` })
      return undefined
    }
    case 'json': {
      const read = readJson(field, text)
      if ('value' in read) return read.value
      problems.push({ path, message: `${path} ${read.problem}` })
      return undefined
    }
    default:
      return text
  }
}

/** The JSON fields whose value is never a string: no advice about quotes there. */
const NOT_TEXT: ReadonlySet<string> = new Set(['object', 'array', 'null'])

/**
 * The value of the text of a JSON field, or what is wrong with it, as a phrase that follows the field's
 * name (`is not JSON: …`). In a field that may hold a string (`any`, a type the manifest does not
 * describe), text that reads as a bare word is most likely a string without its quotes, which the phrase
 * says.
 */
export function readJson (field: JsonField, text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    const trimmed = text.trim()
    const bare = !NOT_TEXT.has(field.typeLabel) && /^[^\s"{[\d.+-][^"{}[\]]*$/u.test(trimmed)
    const tip = bare ? ` Text is written in double quotes: ${JSON.stringify(trimmed)}.` : ''
    return { problem: `is not JSON: ${(error as Error).message}.${tip}` }
  }
}

/** Whether anything was typed in the field: text, a choice, or an item of an array. */
export function typed (field: Field, raw: Raw): boolean {
  switch (field.kind) {
    case 'object': {
      const object = asObject(raw)
      return field.fields.some((child) => {
        const childRaw = ownValue(object, child.name)
        return childRaw !== undefined && typed(child, childRaw)
      })
    }
    case 'array':
      return asArray(raw).length > 0
    case 'text':
      return asText(raw) !== ''
    default:
      return asText(raw).trim() !== ''
  }
}

function asObject (raw: Raw): RawObject {
  return isPlainObject(raw) ? raw as RawObject : {}
}

function asArray (raw: Raw): Raw[] {
  return Array.isArray(raw) ? raw : []
}

function asText (raw: Raw): string {
  return typeof raw === 'string' ? raw : ''
}

function sameJson (a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
