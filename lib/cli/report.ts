import type { Change, ManifestDiff } from '../client/changes.js'
import { escapeControls } from './escape.js'

/**
 * The diff as people read it in a terminal or a CI log: one line per change. Messages carry names from the
 * manifests, so their control characters (a line feed too) are escaped.
 */
export function formatDiff (diff: ManifestDiff): string {
  if (diff.breaking.length === 0 && diff.nonBreaking.length === 0) return 'No changes.\n'
  // Messages start in one column: 24, or further when a kind is longer (`property.required-changed`).
  const width = Math.max(24, ...[...diff.breaking, ...diff.nonBreaking].map((change) => change.kind.length + 2))
  return [
    ...section('breaking', diff.breaking, width),
    ...section('non-breaking', diff.nonBreaking, width)
  ].join('\n') + '\n'
}

function section (title: string, changes: Change[], width: number): string[] {
  if (changes.length === 0) return []
  const heading = `${changes.length} ${title} change${changes.length === 1 ? '' : 's'}:`
  return [heading, ...changes.map((change) => `  ${change.kind.padEnd(width)}${escapeControls(change.message)}`)]
}
