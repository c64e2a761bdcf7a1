import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TSchema } from '@sinclair/typebox'
import { manifestSchemas } from '../manifest/schema.js'
import { typeReferenceErrors } from '../manifest/references.js'
import type { Manifest } from '../manifest/types.js'
import { checksumOf } from './checksum.js'
import { MAX_NESTING_DEPTH, tooDeep, tooDeepError } from './nesting.js'

export interface VerifyResult {
  /** True when the manifest matches the schema of its layout and its checksum matches its commands. */
  ok: boolean
  /** One line per problem, `"<JSON pointer>: <what is wrong>"`; empty when `ok`. */
  errors: string[]
}

const checkers = new Map<string, TypeCheck<TSchema>>(
  Object.entries(manifestSchemas).map(([layout, schema]) => [layout, TypeCompiler.Compile(schema)])
)

/**
 * Checks a manifest as a client receives it: its nesting depth (`MAX_NESTING_DEPTH`), the schema of the
 * layout named by its `svc` field, then the checksum recomputed from `commands` (each step only when the
 * one before passed).
 */
export function verifyManifest (manifest: unknown): VerifyResult {
  const errors = schemaErrors(manifest)
  if (errors.length === 0) errors.push(...checksumErrors(manifest as Manifest))
  return { ok: errors.length === 0, errors }
}

/** The schema problems of a manifest, one line each; a value nested too deeply is the only one reported. */
export function schemaErrors (manifest: unknown): string[] {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return ['/: expected a manifest object']
  }
  const deep = tooDeep(manifest, MAX_NESTING_DEPTH, [])
  if (deep !== undefined) return [tooDeepError(deep)]
  const layout = (manifest as { svc?: unknown }).svc
  const checker = checkers.get(layout as string)
  if (checker === undefined) {
    return [`/svc: expected a known layout, "${[...checkers.keys()].join('" or "')}"; got ${JSON.stringify(layout) ?? 'nothing'}`]
  }
  const problems = firstErrorPerPath(checker.Errors(manifest))
  // What a JSON Schema cannot say: each `type` names a JSON type or a type the manifest defines.
  return problems.length > 0 ? problems : typeReferenceErrors(manifest as Manifest)
}

/** TypeBox reports a missing field twice (required, then its type): the first says it best. */
function firstErrorPerPath (errors: Iterable<{ path: string, message: string }>): string[] {
  const byPath = new Map<string, string>()
  for (const { path, message } of errors) {
    if (!byPath.has(path)) byPath.set(path, message)
  }
  return [...byPath].map(([path, message]) => `${path}: ${message}`)
}

/** A line saying the checksum does not match the commands, or nothing when it does. */
export function checksumErrors (manifest: Manifest): string[] {
  const recomputed = checksumOf(manifest.commands)
  if (recomputed === manifest.checksum) return []
  return [`/checksum: ${manifest.checksum} does not match the commands, whose checksum is ${recomputed}`]
}
