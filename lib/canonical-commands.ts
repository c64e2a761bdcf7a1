import { canonicalJson, inCanonicalOrder, isArrayIndex, UNORDERABLE } from './checksum.js'
import { FST_SVC_INVALID_JSON_VALUE } from './errors.js'
import type { ManifestCommand, ManifestParam, ManifestTypeRef } from './types.js'

type Commands = Readonly<Record<string, ManifestCommand>>
type Canonical = Record<string, unknown>

const LONE_SURROGATE = 'has a lone surrogate'

/**
 * The RFC 8785 canonical JSON of the commands that `buildManifest` made, as `checksumOf` would write it.
 * Their shape is known, so each object is rebuilt with its keys in code-unit order directly instead of
 * being found by a generic traversal: only param defaults, which may be any JSON, take that path.
 * A param name JavaScript cannot keep in that order (an array index, `"10"`) sends every command through
 * `canonicalJson`. A value RFC 8785 forbids (NaN, Infinity, a lone surrogate) is refused, naming the field.
 */
export function canonicalCommandsJson (commands: Commands): string {
  const canonical: Canonical = {}
  for (const name of Object.keys(commands)) {
    const command = canonicalCommand(commands[name], name)
    if (command === UNORDERABLE) return canonicalJson(commands)
    canonical[name] = command
  }
  return JSON.stringify(canonical)
}

function canonicalCommand (command: ManifestCommand, name: string): Canonical | typeof UNORDERABLE {
  const canonical: Canonical = {}
  if (command.auth !== undefined) canonical.auth = command.auth
  canonical.description = wellFormed(command.description, name, 'description')
  // Hints are built as { idempotent?, sideEffects? }: already in order.
  if (command.hints !== undefined) canonical.hints = command.hints
  if (command.params !== undefined) {
    const params = canonicalParams(command.params, name)
    if (params === UNORDERABLE) return UNORDERABLE
    canonical.params = params
  }
  if (command.returns !== undefined) canonical.returns = canonicalTypeRef(command.returns, name)
  if (command.tags !== undefined) {
    for (const tag of command.tags) wellFormed(tag, name, 'tags')
    canonical.tags = command.tags
  }
  return canonical
}

/** Params arrive sorted by name, so inserting them in turn keeps that order. */
function canonicalParams (params: Record<string, ManifestParam>, command: string): Canonical | typeof UNORDERABLE {
  const canonical: Canonical = {}
  for (const name of Object.keys(params)) {
    if (isArrayIndex(name)) return UNORDERABLE
    wellFormed(name, command, 'a param name')
    const param = canonicalParam(params[name], command, name)
    if (param === UNORDERABLE) return UNORDERABLE
    canonical[name] = param
  }
  return canonical
}

function canonicalParam (param: ManifestParam, command: string, name: string): Canonical | typeof UNORDERABLE {
  const canonical: Canonical = {}
  if (param.default !== undefined) {
    const value = inCanonicalOrder(param.default)
    if (value === UNORDERABLE) {
      refuseForbidden(param.default, command, `${paramField(name)} default`)
      return UNORDERABLE
    }
    canonical.default = value
  }
  if (param.description !== undefined) {
    // Checked here rather than by wellFormed(), so that the usual case builds no field name.
    if (!param.description.isWellFormed()) throw notJson(command, `${paramField(name)} description`, LONE_SURROGATE)
    canonical.description = param.description
  }
  canonical.required = param.required
  canonical.type = param.type
  return canonical
}

function canonicalTypeRef (ref: ManifestTypeRef, command: string): ManifestTypeRef {
  if (ref.description === undefined) return ref
  return { description: wellFormed(ref.description, command, 'returns description'), type: ref.type }
}

function wellFormed (text: string, command: string, field: string): string {
  if (text.isWellFormed()) return text
  throw notJson(command, field, LONE_SURROGATE)
}

function paramField (name: string): string {
  return `param ${JSON.stringify(name)}`
}

/** Throws when a value holds something RFC 8785 forbids; returns when it is only unorderable. */
function refuseForbidden (value: unknown, command: string, field: string): void {
  const forbidden = forbiddenIn(value)
  if (forbidden !== undefined) throw notJson(command, field, `holds ${forbidden}`)
}

function forbiddenIn (value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : String(value)
  if (typeof value === 'string') return value.isWellFormed() ? undefined : `a string that ${LONE_SURROGATE}`
  if (value === null || typeof value !== 'object') return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = forbiddenIn(key) ?? forbiddenIn(child)
    if (found !== undefined) return found
  }
  return undefined
}

function notJson (command: string, field: string, problem: string): Error {
  return new FST_SVC_INVALID_JSON_VALUE(`command "${command}" ${field} ${problem}. The checksum is computed over RFC 8785 JSON, which allows only finite numbers and well-formed Unicode strings: change or remove it.`)
}
