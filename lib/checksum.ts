import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { ManifestCommand } from './types.js'

/**
 * The manifest checksum: lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `commands`.
 * Any client can recompute it from the served body.
 */
export function checksumOf (commands: Readonly<Record<string, ManifestCommand>>): string {
  // canonicalize() returns undefined only for undefined input, which the type rules out.
  const canonical = canonicalize(commands) as string
  return createHash('sha256').update(canonical, 'utf8').digest('hex')
}
