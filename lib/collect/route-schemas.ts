import type { RouteOptions } from 'fastify'
import { FST_SVC_PARAMS_DECLARED_TWICE, FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import { isPlainObject } from '../options.js'
import { isObjectWithProperties, type Schema } from '../build/type-map.js'
import type { CommandSource } from './sources.js'
import { invalid } from './checks.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
/** Where params are read from when `svc.params` is absent, in this order, and where a caller puts each. */
const PARAM_PLACES = [['params', 'path'], ['querystring', 'query'], ['body', 'body']] as const
const RESPONSE_CODES = ['200', '201', '2xx']

/** Where `svc.params` goes: the body for POST/PUT/PATCH, the query string otherwise. */
export function svcParamsPlace (method: string): 'query' | 'body' {
  return BODY_METHODS.has(method) ? 'body' : 'query'
}

export function schemaObject (value: unknown, route: string, field: string): Schema {
  if (!isPlainObject(value)) invalid(route, field, 'a JSON Schema object', value)
  return value
}

export function objectSchema (value: unknown, route: string, field: string): Schema {
  const schema = schemaObject(value, route, field)
  if (!isObjectWithProperties(schema)) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`route ${route}: ${field} must be an object schema with properties, for example Type.Object({ q: Type.String() }).`)
  }
  return schema
}

export function refsIn (value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found)
  } else if (isPlainObject(value)) {
    if (typeof value.$ref === 'string') found.push(value.$ref)
    for (const child of Object.values(value)) refsIn(child, found)
  }
  return found
}

/** Installs `svc.params` as the route's body or querystring schema, without touching the user's objects. */
export function installParams (routeOptions: RouteOptions, method: string, params: Schema, route: string): void {
  const place = BODY_METHODS.has(method) ? 'body' : 'querystring'
  const schema = (routeOptions.schema ?? {}) as Record<string, unknown>
  if (schema[place] !== undefined) {
    throw new FST_SVC_PARAMS_DECLARED_TWICE(`route ${route} has both svc.params and schema.${place}. Declare params once: keep svc.params and remove schema.${place}, or drop svc.params to derive them from the schema.`)
  }
  routeOptions.schema = { ...schema, [place]: params }
}

export function addRouteParamSources (command: CommandSource, routeOptions: RouteOptions): void {
  const schema = (routeOptions.schema ?? {}) as Record<string, unknown>
  for (const [field, place] of PARAM_PLACES) {
    if (schema[field] === undefined) continue
    const where = `${command.route} schema.${field}`
    command.paramSources.push({ where, schema: objectSchema(schema[field], command.route, `schema.${field}`), place })
  }
}

/** The success response schema: `200`, `201` or `2xx`, the first found; a `content` map gives its JSON schema. */
export function responseSchema (routeOptions: RouteOptions, route: string): CommandSource['returns'] {
  const response = (routeOptions.schema as { response?: Record<string, unknown> } | undefined)?.response
  if (!isPlainObject(response)) return undefined
  let code: string | undefined
  for (const candidate of RESPONSE_CODES) {
    if (response[candidate] === undefined) continue
    code = candidate
    break
  }
  if (code === undefined) return undefined
  let schema = response[code] as Schema
  const content = schema.content as Record<string, { schema?: Schema }> | undefined
  if (isPlainObject(content)) {
    const media = content['application/json'] ?? Object.values(content)[0]
    // An empty content map declares no body. An entry without a schema is refused by Fastify itself.
    if (media === undefined) return undefined
    schema = media.schema as Schema
  }
  return { where: `${route} schema.response.${code}`, schema }
}
