import type { Change, ManifestDiff } from '../client/changes.js'
import { escapeControls } from './escape.js'

/**
 * The diff as people read it in a terminal or a CI log: one line per change. Messages carry names from the
 * manifests, so their control characters (a line feed too) are escaped.
 */
export function formatDiff (diff: ManifestDiff): string {
  if (diff.breaking.length === 0 && diff.nonBreaking.length === 0) return 'No changes.\n'
  return [
    ...section('breaking', diff.breaking),
    ...section('non-breaking', diff.nonBreaking)
  ].join('\n') + '\n'
}

function section (title: string, changes: Change[]): string[] {
  if (changes.length === 0) return []
  const heading = `${changes.length} ${title} change${changes.length === 1 ? '' : 's'}:`
  return [heading, ...changes.map((change) => `  ${change.kind.padEnd(24)}${escapeControls(change.message)}`)]
}
