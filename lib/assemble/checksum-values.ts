import { FST_SVC_INVALID_JSON_VALUE } from '../errors.js'
import type { ManifestCommand } from '../manifest/types.js'

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
