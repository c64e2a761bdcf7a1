import { FST_SVC_INVALID_ROUTES } from './errors.js'

/** The error `ready()` rejects with when it found several problems: each coded error, in the order found. */
export interface InvalidRoutesError extends Error {
  code: 'FST_SVC_INVALID_ROUTES'
  errors: Error[]
}

/**
 * One error for every problem found, of every kind, so that one boot shows an app's whole to-do list: one
 * problem is raised as it is (its own class and code); several become `FST_SVC_INVALID_ROUTES`, whose
 * message lists each with its code, one a line, and whose `errors` array holds them. An
 * `FST_SVC_INVALID_ROUTES` among `errors` is opened up, so lists gathered in stages nest into one.
 */
export function together (errors: readonly Error[]): Error {
  const all = errors.flatMap((error) => isInvalidRoutes(error) ? error.errors : [error])
  if (all.length === 1) return all[0]
  const lines = all.map((error) => `- ${String(codeOf(error))}: ${error.message}`)
  const combined = new FST_SVC_INVALID_ROUTES(`${all.length} problems:\n${lines.join('\n')}`) as unknown as InvalidRoutesError
  combined.errors = all
  return combined
}

/** Whether an error is the list `together` makes. */
export function isInvalidRoutes (error: unknown): error is InvalidRoutesError {
  return error instanceof FST_SVC_INVALID_ROUTES
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
