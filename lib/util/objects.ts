/** A non-null object that is not an array: what a JSON object, an options object or a schema object is. */
export function isPlainObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
