import { createHash } from 'node:crypto'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TSchema } from '@sinclair/typebox'
import { readerManifestSchemas } from '../manifest/reader-schema.js'
import { manifestSchemas } from '../manifest/schema.js'
import { typeReferenceErrors } from '../manifest/references.js'
import type { Manifest, ServedManifest } from '../manifest/types.js'
import { checksumOf } from './checksum.js'
import { MAX_NESTING_DEPTH, tooDeep, tooDeepError } from './nesting.js'

export interface VerifyOptions {
  /**
   * Check the manifest as the plugin serves it: every field of its layout there, no field the layout does
   * not name, the checksum as RFC 8785. Default false: as a reader takes a manifest another server wrote
   * (docs/client.md, verifyManifest): only what the spec requires, unknown fields allowed, Surf's manifest and checksum taken.
   */
  strict?: boolean
}

export interface VerifyResult {
  /** True when the manifest matches the schema of its layout and its checksum matches its commands. */
  ok: boolean
  /** One line per problem, `"<JSON pointer>: <what is wrong>"`; empty when `ok`. */
  errors: string[]
  /**
   * `'surf'` when the checksum matches only as Surf computes it (`JSON.stringify` of `commands` with its
   * keys sorted) rather than as RFC 8785 canonical JSON; absent otherwise. Never with `strict`.
   */
  checksumMethod?: 'surf'
}

const compile = (schemas: Record<string, TSchema>): Map<string, TypeCheck<TSchema>> =>
  new Map(Object.entries(schemas).map(([layout, schema]) => [layout, TypeCompiler.Compile(schema)]))
const strictCheckers = compile(manifestSchemas)
const readerCheckers = compile(readerManifestSchemas)

/**
 * Checks a manifest as a client receives it: its nesting depth (`MAX_NESTING_DEPTH`), the schema of the
 * layout named by its `svc` field (a reader's, or with `strict` the wire schema), then the checksum
 * recomputed from `commands` (each step only when the one before passed).
 */
export function verifyManifest (manifest: unknown, options: VerifyOptions = {}): VerifyResult {
  const strict = options.strict === true
  const errors = schemaErrors(manifest, strict)
  if (errors.length > 0) return { ok: false, errors }
  const method = checksumMethodOf(manifest as ServedManifest, strict)
  if (method === undefined) return { ok: false, errors: checksumErrors(manifest as ServedManifest, strict) }
  return method === 'surf' ? { ok: true, errors, checksumMethod: 'surf' } : { ok: true, errors }
}

/** The schema problems of a manifest, one line each; a value nested too deeply is the only one reported. */
export function schemaErrors (manifest: unknown, strict = false): string[] {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return ['/: expected a manifest object']
  }
  const deep = tooDeep(manifest, MAX_NESTING_DEPTH, [])
  if (deep !== undefined) return [tooDeepError(deep)]
  const { svc, surf } = manifest as { svc?: unknown, surf?: unknown }
  // A Surf manifest names its layout in `surf`; a reader takes it as layout 1.0 and its extras.
  const layout = !strict && svc === undefined && surf !== undefined ? 'surf' : svc
  const checker = (strict ? strictCheckers : readerCheckers).get(layout as string)
  if (checker === undefined || (layout === 'surf' && svc !== undefined)) {
    const surfs = strict ? '' : ' (or Surf\'s "surf" field)'
    return [`/svc: expected a known layout, "${[...strictCheckers.keys()].join('" or "')}"${surfs}; got ${JSON.stringify(svc) ?? 'nothing'}`]
  }
  const problems = firstErrorPerPath(checker.Errors(manifest))
  // What a JSON Schema cannot say: each descriptor names a JSON type or a type the manifest defines.
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

/**
 * How the checksum matches the commands: `'rfc8785'`, `'surf'` (only for a reader), or undefined when it
 * matches neither way.
 */
export function checksumMethodOf (manifest: ServedManifest, strict = false): 'rfc8785' | 'surf' | undefined {
  if (checksumOf(manifest.commands as Manifest['commands']) === manifest.checksum) return 'rfc8785'
  if (!strict && surfChecksumOf(manifest.commands) === manifest.checksum) return 'surf'
  return undefined
}

/**
 * The checksum as Surf computes it (its generateManifest): lowercase hex SHA-256 of `JSON.stringify` of
 * `commands` with its own keys sorted (the keys inside each command stay in their order).
 */
export function surfChecksumOf (commands: Record<string, unknown>): string {
  const sorted: Record<string, unknown> = {}
  for (const name of Object.keys(commands).sort()) {
    Object.defineProperty(sorted, name, { value: commands[name], enumerable: true, writable: true, configurable: true })
  }
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex')
}

/**
 * The line saying a checksum matches its commands neither way: the checksum recomputed as RFC 8785 and, for
 * a reader, as Surf computes it.
 */
export function checksumErrors (manifest: ServedManifest | Manifest, strict: boolean): string[] {
  const recomputed = checksumOf(manifest.commands as Manifest['commands'])
  const surf = strict ? '' : `, or ${surfChecksumOf(manifest.commands)} as Surf computes it`
  return [`/checksum: ${manifest.checksum} does not match the commands, whose checksum is ${recomputed}${surf}`]
}
