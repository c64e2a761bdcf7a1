import { FST_SVC_MISSING_DEPENDENCY } from './errors.js'

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

/** Only the package itself missing counts, not a module that the package fails to find. */
function isMissing (error: unknown, name: string): boolean {
  const { code, message } = error as { code?: string, message?: string }
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' && message.includes(`'${name}'`)
}
