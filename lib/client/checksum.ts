import { canonicalChecksum } from '../manifest/canonical.js'
import type { ManifestCommand } from '../manifest/types.js'
import { ManifestClientError } from './errors.js'
import { MAX_NESTING_DEPTH, tooDeep, tooDeepError } from './nesting.js'

/**
 * The manifest checksum, as the plugin computes it: lowercase hex SHA-256 of the RFC 8785 canonical JSON
 * of `commands`. Commands nested deeper than a manifest may be (`commands` sits at level 2) are refused
 * with `SVC_CLIENT_INVALID_MANIFEST` before any recursive walk, rather than overflowing the stack.
 */
export function checksumOf (commands: Readonly<Record<string, ManifestCommand>>): string {
  const pointer = tooDeep(commands, MAX_NESTING_DEPTH - 1, ['commands'])
  if (pointer !== undefined) {
    const errors = [tooDeepError(pointer)]
    throw new ManifestClientError('SVC_CLIENT_INVALID_MANIFEST', `cannot compute the checksum: ${errors[0]}`, { errors })
  }
  return canonicalChecksum(commands)
}
