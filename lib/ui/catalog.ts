/*
 * The manifest as the human page reads it, without a DOM: the fields it shows (both layouts, and the fields
 * of docs/manifest.md beyond the spec: auth levels, scopes, examples, deprecation), commands grouped by tag, and the filter.
 */
import type { ManifestRateLimit } from '../manifest/types.js'
import type { Descriptor } from './form-fields.js'

export interface PageExample {
  title?: string
  params: Record<string, unknown>
  result?: unknown
}

export interface PageCommand {
  description: string
  params?: Record<string, Descriptor>
  returns?: Descriptor
  tags?: string[]
  hints?: { idempotent?: boolean, sideEffects?: boolean }
  auth?: 'required' | 'optional'
  requiredScopes?: string[]
  examples?: PageExample[]
  deprecated?: boolean
  /** The route replies with a stream: the page runs it streamed (pieces, progress, Stop). */
  stream?: boolean
  /** How many requests a caller may make per window. */
  rateLimit?: ManifestRateLimit
  /** The command answers a page of a list (Surf §8): the page offers the next one after a run. */
  paginated?: unknown
}

export interface PageManifest {
  svc: string
  name: string
  description: string
  about?: string
  version: string
  baseUrl: string
  auth?: { type: string, description: string, scheme?: string }
  commands: Record<string, PageCommand>
  events: Record<string, { description: string, data?: Record<string, Descriptor> }>
  channels?: Record<string, { description: string }>
  types: Record<string, Descriptor>
  checksum: string
  updatedAt: string
}

export interface TagGroup {
  tag: string
  /** Command names, in the manifest's order. */
  names: string[]
}

/** Where commands without a tag are listed. */
export const UNTAGGED = 'other'

/**
 * Commands grouped by tag, tags in alphabetical order and the untagged last; a command with several tags
 * is listed under each, as a reader looking under any of them expects to find it.
 */
export function groupByTag (commands: Readonly<Record<string, PageCommand>>): TagGroup[] {
  const groups = new Map<string, string[]>()
  const untagged: string[] = []
  for (const [name, command] of Object.entries(commands)) {
    const tags = command.tags ?? []
    if (tags.length === 0) untagged.push(name)
    for (const tag of new Set(tags)) {
      const names = groups.get(tag) ?? []
      names.push(name)
      groups.set(tag, names)
    }
  }
  const sorted = [...groups].sort(([a], [b]) => a < b ? -1 : 1).map(([tag, names]) => ({ tag, names }))
  if (untagged.length > 0) sorted.push({ tag: UNTAGGED, names: untagged })
  return sorted
}

/** Every word of the query appears, in any case, in the command's name, description or tags. */
export function matchesFilter (name: string, command: PageCommand, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word !== '')
  const text = [name, command.description, ...(command.tags ?? [])].join('\n').toLowerCase()
  return words.every((word) => text.includes(word))
}

/** The word before the token in `Authorization`: the manifest's `auth.scheme`, else `Bearer`. */
export function authScheme (manifest: Pick<PageManifest, 'auth'>): string {
  return manifest.auth?.scheme ?? 'Bearer'
}

/** The hints as short phrases: `idempotent`, `no side effects`. */
export function hintPhrases (hints: PageCommand['hints']): string[] {
  const phrases: string[] = []
  if (hints?.idempotent === true) phrases.push('idempotent')
  if (hints?.idempotent === false) phrases.push('not idempotent')
  if (hints?.sideEffects === true) phrases.push('side effects')
  if (hints?.sideEffects === false) phrases.push('no side effects')
  return phrases
}
