/** Commands, events and channels: dot-separated words, each starting with a letter. */
export const DOTTED_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z][A-Za-z0-9_-]*)*$'
/** Type names, and the names in `type` fields: a primitive or a registered type, both identifiers. */
export const TYPE_NAME_PATTERN = '^[A-Za-z_$][A-Za-z0-9_$]*$'
/**
 * A name in a `type` field: an identifier, but never one of the names JavaScript's `typeof` gives values
 * JSON cannot hold. A manifest that says a param is `undefined` or `bigint` describes nothing a client can send.
 */
export const TYPE_REFERENCE_PATTERN = '^(?!(?:undefined|bigint|symbol|function)$)[A-Za-z_$][A-Za-z0-9_$]*$'

/** An `Authorization` scheme word (RFC 9110 token), such as `Bearer` or `Token`. */
export const AUTH_SCHEME_PATTERN = "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$"

export const DOTTED_NAME = new RegExp(DOTTED_NAME_PATTERN)
export const TYPE_NAME = new RegExp(TYPE_NAME_PATTERN)

export function isDottedName (name: string): boolean {
  return DOTTED_NAME.test(name)
}
