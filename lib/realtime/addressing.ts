// What an event or a state is addressed to: the subject of a credential, the key of a channel.

/** The subject of a credential: who it belongs to, compared with `emit(…, { to })` and channel keys. */
export type SubjectOf = (credential: unknown) => string | undefined

/**
 * `auth.subject(credential)` when the app gives it, else `credential.sub`. Anything but a non-empty
 * string means "no subject": such a subscriber receives only broadcasts and, by default, no channel.
 */
export function subjectReader (subject?: (credential: unknown) => unknown): SubjectOf {
  return function subjectOf (credential) {
    const value = subject === undefined ? (credential as { sub?: unknown } | null | undefined)?.sub : subject(credential)
    return typeof value === 'string' && value !== '' ? value : undefined
  }
}

/** A channel key: a non-empty string without lone surrogates (which could not be encoded one-to-one). */
export function isChannelKey (key: unknown): key is string {
  return typeof key === 'string' && key !== '' && key.isWellFormed()
}
