/**
 * One error for all the problems of the kind found first, so that `ready()` reports every name clash (or
 * every bad route option, …) of an app at once rather than one per boot. The error is of that kind's own
 * class and code; its message lists each problem on a line of its own.
 */
export function togetherByKind (errors: readonly Error[]): Error {
  const first = errors[0]
  const code = codeOf(first)
  const same = errors.filter((error) => codeOf(error) === code)
  if (same.length === 1) return first
  const ErrorClass = first.constructor as new (detail: string) => Error
  // The fixed text of the code, e.g. "Duplicate name: ", which each message of the class starts with.
  const prefix = new ErrorClass('').message
  const details = same.map(({ message }) => message.slice(prefix.length))
  return new ErrorClass(`${same.length} problems:\n- ${details.join('\n- ')}`)
}

function codeOf (error: Error): unknown {
  return (error as { code?: unknown }).code
}

/** The same error, of the same class and code, with a sentence added to its message. */
export function withHint (error: Error, hint: string): Error {
  const ErrorClass = error.constructor as new (detail: string) => Error
  const prefix = new ErrorClass('').message
  return new ErrorClass(`${error.message.slice(prefix.length)} ${hint}`)
}
