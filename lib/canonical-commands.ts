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
 *
 * Two outcomes besides the JSON: a value RFC 8785 forbids (NaN, Infinity, a lone surrogate) throws
 * FST_SVC_INVALID_JSON_VALUE naming the command and field; a key JavaScript cannot keep in code-unit order
 * (an array index such as `"10"`, in a param name or a default) sends all commands through `canonicalJson`,
 * once every value has been checked.
 */
export function canonicalCommandsJson (commands: Commands): string {
  const writer = new CanonicalWriter()
  const canonical: Canonical = {}
  // Command names are dotted names (lib/names.ts): never array indexes, always well-formed.
  for (const name of Object.keys(commands)) canonical[name] = writer.command(commands[name], name)
  return writer.orderable ? JSON.stringify(canonical) : canonicalJson(commands)
}

class CanonicalWriter {
  /** False once some key cannot be inserted in code-unit order; the rest is still checked. */
  orderable = true

  command (command: ManifestCommand, name: string): Canonical {
    const canonical: Canonical = {}
    if (command.auth !== undefined) canonical.auth = command.auth
    canonical.description = wellFormed(command.description, name, 'description')
    // readHints (lib/collect.ts) builds hints as { idempotent?, sideEffects? }: already in order.
    if (command.hints !== undefined) canonical.hints = command.hints
    if (command.params !== undefined) canonical.params = this.params(command.params, name)
    if (command.returns !== undefined) canonical.returns = canonicalTypeRef(command.returns, name)
    if (command.tags !== undefined) {
      for (const tag of command.tags) wellFormed(tag, name, 'tags')
      canonical.tags = command.tags
    }
    return canonical
  }

  /** Params are built sorted by name, so inserting them in turn keeps that order. */
  private params (params: Record<string, ManifestParam>, command: string): Canonical {
    const canonical: Canonical = {}
    let previous: string | undefined
    for (const name of Object.keys(params)) {
      wellFormed(name, command, 'a param name')
      if (isArrayIndex(name) || (previous !== undefined && previous > name)) this.orderable = false
      canonical[name] = this.param(params[name], command, name)
      previous = name
    }
    return canonical
  }

  private param (param: ManifestParam, command: string, name: string): Canonical {
    const canonical: Canonical = {}
    if (param.default !== undefined) {
      const value = inCanonicalOrder(param.default)
      if (value === UNORDERABLE) {
        refuseForbidden(param.default, command, `${paramField(name)} default`)
        this.orderable = false
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
