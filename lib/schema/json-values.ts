import { describeValue } from '../describe.js'
import { FST_SVC_INVALID_JSON_VALUE } from '../errors.js'
import { setOwn } from '../manifest/own-key.js'
import type { ManifestCommand } from '../manifest/types.js'

/**
 * How deeply a value served in the manifest (a param's default) may nest. A value that contains itself
 * never ends, and is refused at this depth rather than by the stack; clients parse what is served, so the
 * limit also keeps their parsers far from theirs.
 */
export const MAX_VALUE_DEPTH = 64

/** Called with what is wrong (`"a function"`) when a value is not JSON; it throws. */
export type JsonValueFailure = (what: string) => never

/**
 * A copy of a value served in the manifest (a param's default), so the manifest never shares an object
 * with the user's schema. Only what JSON holds is copied: a function, a Symbol, a BigInt, `undefined` or a
 * hole in an array, an object that is not plain (a Date, a Map) or a cycle is refused, by default with
 * `FST_SVC_INVALID_JSON_VALUE` naming `where`. Object properties that are `undefined` are left out, as
 * JSON.stringify and RFC 8785 do. A key named `__proto__` stays a key (see setOwn).
 */
export function jsonCopy (value: unknown, where: string, fail: JsonValueFailure = (what) => refuse(where, what)): unknown {
  return copyOf(value, 0, fail)
}

function copyOf (value: unknown, depth: number, fail: JsonValueFailure): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value !== 'object') fail(value === undefined ? 'undefined' : describeValue(value))
  if (depth >= MAX_VALUE_DEPTH) fail(`values nested more than ${MAX_VALUE_DEPTH} levels deep, or a value that contains itself`)
  if (Array.isArray(value)) {
    const items: unknown[] = []
    // An index loop, not map(): a hole in a sparse array is refused like undefined rather than kept as a hole.
    for (let index = 0; index < value.length; index++) {
      if (value[index] === undefined) fail(`undefined at [${index}]`)
      items.push(copyOf(value[index], depth + 1, fail))
    }
    return items
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) fail(`${classOf(value)}, which is not a plain object`)
  const copy: Record<string, unknown> = {}
  const object = value as Record<string, unknown>
  for (const key of Object.keys(object)) {
    if (object[key] !== undefined) setOwn(copy, key, copyOf(object[key], depth + 1, fail))
  }
  return copy
}

function classOf (value: object): string {
  const name = (value.constructor as { name?: unknown } | undefined)?.name
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object with a prototype of its own'
}

function refuse (where: string, what: string): never {
  throw new FST_SVC_INVALID_JSON_VALUE(`${where} holds ${what}, which JSON cannot hold. The manifest carries JSON values only: change or remove it.`)
}

/**
 * Refuses a command that holds something RFC 8785 cannot encode — NaN, ±Infinity, a lone surrogate in a
 * string or a key — naming the command and where in it, before the checksum is computed over it.
 */
export function assertJsonValues (commands: Readonly<Record<string, ManifestCommand>>): void {
  for (const name of Object.keys(commands)) {
    const problem = problemIn(commands[name], '')
    if (problem !== undefined) {
      throw new FST_SVC_INVALID_JSON_VALUE(`command "${name}" ${problem}. The checksum is computed over RFC 8785 JSON, which allows only finite numbers and well-formed Unicode strings: change or remove it.`)
    }
  }
}

function problemIn (value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at(path)} holds ${String(value)}`
  if (typeof value === 'string') return value.isWellFormed() ? undefined : `${at(path)} holds a string with a lone surrogate`
  if (value === null || typeof value !== 'object') return undefined
  const array = Array.isArray(value)
  for (const key of Object.keys(value)) {
    if (!key.isWellFormed()) return `${at(path)} has a key with a lone surrogate`
    const problem = problemIn((value as Record<string, unknown>)[key], path + (array ? `[${key}]` : segment(key)))
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Paths start below the command object, whose own keys are the fixed fields of the wire format. */
function at (path: string): string {
  return `at ${path.slice(1)}`
}

function segment (key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}
