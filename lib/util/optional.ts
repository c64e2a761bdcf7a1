import { FST_SVC_MISSING_DEPENDENCY } from '../errors.js'

/**
 * Imports an optional peer dependency when the feature that needs it is configured. A missing package is
 * `FST_SVC_MISSING_DEPENDENCY` naming the option and the install command; any other failure (the package
 * is there but broken) is rethrown as it is.
 */
export async function importOptional<T> (name: string, neededBy: string): Promise<T> {
  try {
    return await import(name) as T
  } catch (error) {
    if (!isMissing(error, name)) throw error
    throw new FST_SVC_MISSING_DEPENDENCY(`${neededBy} needs the package "${name}", which is not installed. Run: npm install ${name}`)
  }
}

/**
 * Only the package itself missing counts, not a module that the package fails to find. Read from the
 * message: loader hooks (TypeScript runners, test tools) may rethrow the error without its `code`.
 */
function isMissing (error: unknown, name: string): boolean {
  const message = String((error as { message?: unknown }).message)
  return message.startsWith(`Cannot find package '${name}'`) || message.startsWith(`Cannot find module '${name}'`)
}
