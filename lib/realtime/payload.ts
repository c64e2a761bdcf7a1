import type { ErrorObject, Options, ValidateFunction } from 'ajv'
import { FST_SVC_INVALID_OPTION } from '../errors.js'

/** Returns why a payload is refused, or undefined when it satisfies the event's data schema. */
export type PayloadCheck = (data: unknown) => string | undefined

/**
 * A payload is checked as it is: no coercion, no defaults filled in, nothing removed. The app's object
 * is never changed by `emit()`. Unknown keywords (TypeBox's own) are ignored, formats are those Fastify
 * validates routes with.
 */
const AJV_OPTIONS: Options = { strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false }

/**
 * Compiles one check per event that has a data schema, once, at `ready()`. Ajv is imported only when
 * some event has one, so an app without event payloads pays nothing for it. `shared` are the schemas
 * `$ref`s may point at, each with a string `$id`: the app's shared schemas and the registered types
 * (the first schema of an `$id` wins).
 */
export async function compilePayloadChecks (
  events: ReadonlyMap<string, { data?: object }>,
  shared: Iterable<object>
): Promise<Map<string, PayloadCheck>> {
  const checks = new Map<string, PayloadCheck>()
  const withData = [...events].filter(([, event]) => event.data !== undefined)
  if (withData.length === 0) return checks
  const [{ default: ajvModule }, { default: formatsModule }] = await Promise.all([import('ajv'), import('ajv-formats')])
  // Both are CommonJS: the ESM default is `module.exports`, which holds the class under `default`.
  const { default: Ajv } = ajvModule
  const ajv = new Ajv(AJV_OPTIONS)
  formatsModule.default(ajv)
  const ids = new Set<string>()
  for (const schema of shared) {
    const id = (schema as { $id: string }).$id
    if (ids.has(id)) continue
    ids.add(id)
    try {
      ajv.addSchema(schema)
    } catch {
      // Ajv refuses this $id (e.g. "urn:x"); only an event that refers to it is affected, and its compile below says so.
    }
  }
  for (const [name, event] of withData) {
    let validate: ValidateFunction
    try {
      validate = ajv.compile(event.data as object)
    } catch (error) {
      throw new FST_SVC_INVALID_OPTION(`event "${name}": its "data" schema cannot be compiled to check payloads: ${(error as Error).message}`)
    }
    checks.set(name, (data) => validate(data) ? undefined : describeErrors(validate.errors as ErrorObject[]))
  }
  return checks
}

function describeErrors (errors: ErrorObject[]): string {
  return errors.map((error) => `data${error.instancePath} ${error.message}`).join('; ')
}
