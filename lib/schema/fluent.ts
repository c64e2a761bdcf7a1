import { isPlainObject } from '../util/objects.js'

/**
 * fluent-json-schema builders carry `isFluentSchema: true` and give their JSON Schema from `valueOf()`,
 * which is how Fastify reads them. The plugin does the same wherever a schema enters (route schemas, `svc.*`,
 * shared schemas), and never loads the package itself: it only calls `valueOf()`.
 */
export function isFluentSchema (value: unknown): value is { isFluentSchema: true, valueOf: () => unknown } {
  return isPlainObject(value) && value.isFluentSchema === true && typeof value.valueOf === 'function'
}

/** The JSON Schema a value stands for: a fluent builder's `valueOf()` (a new object), else the value itself. */
export function readSchema (value: unknown): unknown {
  return isFluentSchema(value) ? value.valueOf() : value
}
