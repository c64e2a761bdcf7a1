/** Stable codes of the errors the client throws; documented in docs/client.md. */
export type ManifestClientErrorCode =
  | 'SVC_CLIENT_INVALID_OPTION'
  | 'SVC_CLIENT_NETWORK'
  | 'SVC_CLIENT_TIMEOUT'
  | 'SVC_CLIENT_ABORTED'
  | 'SVC_CLIENT_REDIRECT'
  | 'SVC_CLIENT_BODY_TOO_LARGE'
  | 'SVC_CLIENT_HTTP_STATUS'
  | 'SVC_CLIENT_INVALID_JSON'
  | 'SVC_CLIENT_INVALID_MANIFEST'
  | 'SVC_CLIENT_CHECKSUM_MISMATCH'
  | 'SVC_CLIENT_INVALID_RESPONSE'
  | 'SVC_CLIENT_NOT_A_STREAM'
  | 'SVC_CLIENT_TOO_LARGE'
  | 'SVC_CLIENT_NO_CHANNEL'
  | 'SVC_CLIENT_NOT_PAGINATED'

export interface ManifestClientErrorDetails {
  /** The HTTP status, for `SVC_CLIENT_HTTP_STATUS` and `SVC_CLIENT_INVALID_RESPONSE`. */
  status?: number
  /**
   * What `verifyManifest` found, for `SVC_CLIENT_INVALID_MANIFEST` and `SVC_CLIENT_CHECKSUM_MISMATCH` (and
   * for `checksumOf` refusing commands nested too deeply).
   */
  errors?: string[]
  cause?: unknown
}

export class ManifestClientError extends Error {
  readonly code: ManifestClientErrorCode
  readonly status?: number
  readonly errors?: string[]

  constructor (code: ManifestClientErrorCode, message: string, details: ManifestClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'ManifestClientError'
    this.code = code
    if (details.status !== undefined) this.status = details.status
    if (details.errors !== undefined) this.errors = details.errors
  }
}

/** Node's fetch throws "fetch failed" and keeps the useful reason (e.g. ECONNREFUSED) in `cause`. */
export function networkReason (error: unknown): string {
  const { message, cause } = error as { message?: string, cause?: { message?: string } }
  return cause?.message ?? message ?? String(error)
}
