import { describeValue } from '../util/describe.js'
import { FST_SVC_INVALID_JSON_VALUE } from '../errors.js'
import { setOwn } from '../util/own-key.js'
import { MAX_DEPTH } from './keywords.js'

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
  if (depth >= MAX_DEPTH) fail(`values nested more than ${MAX_DEPTH} levels deep, or a value that contains itself`)
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
