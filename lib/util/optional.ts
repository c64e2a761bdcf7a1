import { FST_SVC_MISSING_DEPENDENCY } from '../errors.js'

/**
 * Imports an optional peer dependency when the feature that needs it is configured (`load` imports the
 * modules of the package it needs; by default the package itself). Whatever keeps it from loading is
 * `FST_SVC_MISSING_DEPENDENCY` naming the option and the install command, with the reason as its `cause`:
 * a package that is not installed says so; one that is there but fails to load says that, and why.
 */
export async function importOptional<T> (name: string, neededBy: string, load: () => Promise<T> = async () => await import(name) as T): Promise<T> {
  try {
    return await load()
  } catch (cause) {
    const why = isMissing(cause, name) ? 'which is not installed' : `which is installed but failed to load (${String((cause as { message?: unknown }).message)})`
    throw new FST_SVC_MISSING_DEPENDENCY(`${neededBy} needs the package "${name}", ${why}. Run: npm install ${name}`, { cause })
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
