import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { setOwn } from '../util/own-key.js'
import type { ManifestCommand } from './types.js'

/**
 * The manifest checksum: lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `commands`.
 * Any client can recompute it from the served body. Plugin, client and CLI all compute it here.
 */
export function canonicalChecksum (commands: Readonly<Record<string, ManifestCommand>>): string {
  return sortedMapChecksum(commands) ?? sha256Hex(canonicalJson(commands))
}

/** How much canonical text `sortedMapChecksum` gathers before it hashes it. */
const HASH_CHUNK = 64 * 1024

/**
 * The checksum of a map written and hashed one entry at a time, so that neither an ordered copy of the whole
 * map nor its whole text is held at once (at 10,000 commands, most of what it allocates dies young). For a
 * map whose keys already come in RFC 8785 order, as the plugin's commands do. Undefined when the fast path
 * cannot serve: not an object, a key out of order, an array index (which JavaScript lists first) or a lone
 * surrogate among the keys, or a value `orderedJson` gives up on.
 */
export function sortedMapChecksum (map: Readonly<Record<string, unknown>>): string | undefined {
  // The client's checksumOf is given any JSON value: only an object is a map.
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return undefined
  const keys = Object.keys(map)
  for (let index = 0; index < keys.length; index++) {
    if (isArrayIndex(keys[index]) || (index > 0 && keys[index - 1] >= keys[index])) return undefined
  }
  const hash = createHash('sha256')
  let text = '{'
  let separator = ''
  for (const key of keys) {
    const name = JSON.stringify(key)
    const value = orderedJson(map[key])
    if (value === undefined || name.includes(SURROGATE_ESCAPE)) return undefined
    text += `${separator}${name}:${value}`
    separator = ','
    if (text.length >= HASH_CHUNK) {
      hash.update(text, 'utf8')
      text = ''
    }
  }
  return hash.update(`${text}}`, 'utf8').digest('hex')
}

export function sha256Hex (text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/**
 * Returned by `inCanonicalOrder` when a value must go through `canonicalize` instead: it holds a key that no
 * JavaScript object can put in JCS order, or a number JCS forbids (NaN, ±Infinity), which `canonicalize`
 * refuses.
 */
const UNORDERABLE = Symbol('unorderable')

/** Up to this many keys, an object's keys are sorted by insertion (see sortKeys). */
const INSERTION_SORT_LIMIT = 16

/**
 * `JSON.stringify` writes a lone surrogate, which RFC 8785 forbids, as an escape `\udXXX` (lowercase), and
 * writes no other `\u` escape that starts so: a text without this sequence holds none, in keys or values.
 */
const SURROGATE_ESCAPE = '\\ud'

/**
 * RFC 8785 canonical JSON. `JSON.stringify` already writes strings and numbers as JCS does, and writes
 * keys in insertion order, so a value whose keys are inserted in code-unit order serialises canonically.
 * Objects with array-index keys (`"10"`) cannot be ordered so, since JavaScript lists such keys first:
 * those values, and values that are not I-JSON, go through the `canonicalize` package instead.
 */
export function canonicalJson (value: unknown): string {
  // canonicalize() returns undefined only for undefined input, which the callers never pass.
  return orderedJson(value) ?? loadedCanonicalize()(value) as string
}

type Canonicalize = (value: unknown) => string | undefined
let canonicalize: Canonicalize | undefined

/**
 * The `canonicalize` package, loaded the first time the fast path gives up: nearly every manifest never
 * needs it, and an app should not pay for loading it. It is ESM only, and this call is synchronous: Node
 * (20.19 and later 20s, 22.12 and later: the engines range) requires an ES module by the file its `import`
 * resolves to.
 */
function loadedCanonicalize (): Canonicalize {
  canonicalize ??= (createRequire(import.meta.url)(fileURLToPath(import.meta.resolve('canonicalize'))) as { default: Canonicalize }).default
  return canonicalize
}

/**
 * The canonical JSON written by `JSON.stringify` over the value with its keys in code-unit order, or
 * undefined when that cannot be done: an array-index key, or a value RFC 8785 forbids (NaN, ±Infinity, a
 * lone surrogate). Strings are checked once, in the text written. The plugin calls it first and looks for
 * the reason only when it fails; a text that merely looks like an escape (a backslash followed by `ud`)
 * also takes that slower path, which gives the same bytes.
 */
export function orderedJson (value: unknown): string | undefined {
  const ordered = inCanonicalOrder(value)
  if (ordered === UNORDERABLE) return undefined
  const text = JSON.stringify(ordered)
  return text.includes(SURROGATE_ESCAPE) ? undefined : text
}

/**
 * The value with every object's keys in code-unit order. Parts already in that order are reused as they
 * are, so the usual manifest, whose maps are sorted, costs a copy of its commands and params only.
 * Strings are left to `orderedJson`.
 */
function inCanonicalOrder (value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : UNORDERABLE
  if (value === null || typeof value !== 'object') return value
  return Array.isArray(value) ? arrayInOrder(value) : objectInOrder(value as Record<string, unknown>)
}

function arrayInOrder (array: unknown[]): unknown {
  let copy: unknown[] | undefined
  for (let index = 0; index < array.length; index++) {
    const item = array[index]
    if (typeof item === 'string') continue
    const ordered = inCanonicalOrder(item)
    if (ordered === UNORDERABLE) return UNORDERABLE
    if (ordered !== item) {
      copy ??= array.slice()
      copy[index] = ordered
    }
  }
  return copy ?? array
}

function objectInOrder (object: Record<string, unknown>): unknown {
  const keys = Object.keys(object)
  let sorted = true
  for (let index = 0; index < keys.length; index++) {
    if (isArrayIndex(keys[index])) return UNORDERABLE
    if (index > 0 && keys[index - 1] > keys[index]) sorted = false
  }
  if (!sorted) sortKeys(keys)
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {}
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]
    const item = object[key]
    const ordered = typeof item === 'string' ? item : inCanonicalOrder(item)
    if (ordered === UNORDERABLE) return UNORDERABLE
    if (copy === undefined && ordered !== item) copy = copyOfFirst(object, keys, index)
    if (copy !== undefined) setOwn(copy, key, ordered)
  }
  return copy ?? object
}

/**
 * Sorts keys by UTF-16 code units, as RFC 8785 does (`<` and `>` on strings compare so). An object's few
 * keys sort faster by insertion than through `Array.prototype.sort`, whose set-up dominates short lists.
 */
function sortKeys (keys: string[]): void {
  if (keys.length > INSERTION_SORT_LIMIT) {
    keys.sort()
    return
  }
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index]
    let before = index - 1
    while (before >= 0 && keys[before] > key) {
      keys[before + 1] = keys[before]
      before--
    }
    keys[before + 1] = key
  }
}

/** A key named `__proto__` stays a key in the copy (see setOwn). */
function copyOfFirst (object: Record<string, unknown>, keys: string[], count: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (let index = 0; index < count; index++) setOwn(copy, keys[index], object[keys[index]])
  return copy
}

/** Keys that JavaScript orders numerically before all others: "0" to "4294967294" without leading zeros. */
function isArrayIndex (key: string): boolean {
  const first = key.charCodeAt(0)
  if (first < 48 || first > 57) return false
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295
}
