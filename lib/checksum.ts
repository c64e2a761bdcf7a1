import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { ManifestCommand } from './types.js'

/**
 * The manifest checksum: lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of `commands`.
 * Any client can recompute it from the served body.
 */
export function checksumOf (commands: Readonly<Record<string, ManifestCommand>>): string {
  const canonical = canonicalize(commands)
  if (canonical === undefined) throw new TypeError('checksumOf expects the manifest\'s commands object.')
  return createHash('sha256').update(canonical, 'utf8').digest('hex')
}
