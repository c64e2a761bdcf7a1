import type { RouteOptions } from 'fastify'
import { FST_SVC_PARAMS_DECLARED_TWICE, FST_SVC_UNMAPPABLE_SCHEMA } from '../errors.js'
import { isPlainObject } from '../util/objects.js'
import { isObjectWithProperties, propertiesOf, type Schema } from '../schema/schema.js'
import { readSchema } from '../schema/fluent.js'
import { WHOLE_BODY_PARAM, type CommandSource, type ParamPlace, type ParamSource } from './sources.js'
import { invalid } from './checks.js'
import { hasParams, pathParamsOf, type PathParam } from '../route-url.js'
import { isHeaderParam } from '../manifest/invocation.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
const RESPONSE_CODES = ['200', '201', '2xx']

/** Where `svc.params` goes: the body for POST/PUT/PATCH, the query string otherwise. */
export function svcParamsPlace (method: string): 'query' | 'body' {
  return BODY_METHODS.has(method) ? 'body' : 'query'
}

/** A schema object as Fastify reads it: a fluent-json-schema builder through its `valueOf()`. */
export function schemaObject (value: unknown, route: string, field: string): Schema {
  const schema = readSchema(value)
  if (!isPlainObject(schema)) invalid(route, field, 'a JSON Schema object', value)
  return schema
}

export function objectSchema (value: unknown, route: string, field: string): Schema {
  const schema = schemaObject(value, route, field)
  if (!isObjectWithProperties(schema)) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`route ${route}: ${field} must be an object schema with properties, for example Type.Object({ q: Type.String() }).`)
  }
  return schema
}

/** Installs `svc.params` as the route's body or querystring schema, without touching the user's objects. */
export function installParams (routeOptions: RouteOptions, method: string, params: Schema, route: string): void {
  const place = BODY_METHODS.has(method) ? 'body' : 'querystring'
  const schema = (routeOptions.schema ?? {}) as Record<string, unknown>
  const declared = schema[place] !== undefined ? place : place === 'querystring' && schema.query !== undefined ? 'query' : undefined
  if (declared !== undefined) {
    throw new FST_SVC_PARAMS_DECLARED_TWICE(`route ${route} has both svc.params and schema.${declared}. Declare params once: keep svc.params and remove schema.${declared}, or drop svc.params to derive them from the schema.`)
  }
  routeOptions.schema = { ...schema, [place]: params }
}

/**
 * The path params, always params of the command: from `schema.params` when the route has it, then any
 * `:name` (or wildcard `*`) of the URL that it leaves out, as a string. A param with a regexp in the URL
 * (`:id(\\d+)`) carries it as `pattern`, anchored as the router applies it (see withUrlPatterns).
 */
export function addPathParamSources (command: CommandSource, routeSchema: Record<string, unknown> | undefined): void {
  const fromUrl = hasParams(command.url) ? pathParamsOf(command.url) : NO_PATH_PARAMS
  const optional = fromUrl.length === 0 ? undefined : optionalNames(fromUrl)
  let declared: Record<string, unknown> | undefined
  if (routeSchema?.params !== undefined) {
    const schema = objectSchema(routeSchema.params, command.route, 'schema.params')
    command.paramSources.push(pathSource(`${command.route} schema.params`, withUrlPatterns(schema, fromUrl), optional))
    declared = propertiesOf(schema)
  }
  if (fromUrl.length === 0) return
  const missing = declared === undefined ? fromUrl : fromUrl.filter(({ name }) => !Object.hasOwn(declared, name))
  if (missing.length > 0) command.paramSources.push(pathSource(`${command.route} URL`, urlParamsSchema(missing), optional))
}

const NO_PATH_PARAMS: PathParam[] = []

/**
 * `schema.params` with the URL's regexps as the `pattern` of the params that have one, on copies (the
 * user's schema is never written to). A param whose schema declares a `pattern` of its own must match
 * both: the two become one pattern, the schema's searched for (as JSON Schema does) in the text the URL's
 * matches whole, unless they are the same.
 */
function withUrlPatterns (schema: Schema, fromUrl: PathParam[]): Schema {
  const properties = propertiesOf(schema) as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const { name, pattern } of fromUrl) {
    const usable = usablePattern(pattern)
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined
    if (usable === undefined || !isPlainObject(property)) continue
    copy ??= Object.assign(Object.create(null), properties) as Record<string, unknown>
    copy[name] = { ...property, pattern: bothPatterns(property.pattern, usable) }
  }
  return copy === undefined ? schema : { ...schema, properties: copy }
}

/** The pattern a value matches when it matches the schema's `own` (searched) and the URL's (anchored). */
function bothPatterns (own: unknown, url: string): string {
  if (typeof own !== 'string' || own === url || `^${own}$` === url) return url
  return `^(?=[\\s\\S]*?(?:${own}))(?:${url.slice(1, -1)})$`
}

/**
 * The URL's pattern when JSON Schema validators can read it: they compile patterns with the `u` flag,
 * which refuses some escapes the router's regexps allow (`\\-`). One they cannot is left out: the router
 * still applies it.
 */
function usablePattern (pattern: string | undefined): string | undefined {
  if (pattern === undefined) return undefined
  try {
    // eslint-disable-next-line no-new -- compiled only to see whether it compiles
    new RegExp(pattern, 'u')
    return pattern
  } catch {
    return undefined
  }
}

function pathSource (where: string, schema: Schema, optional: ReadonlySet<string> | undefined): ParamSource {
  return optional === undefined ? { where, schema, place: 'path' } : { where, schema, place: 'path', optional }
}

function optionalNames (params: PathParam[]): ReadonlySet<string> | undefined {
  if (!params.some((param) => param.optional)) return undefined
  return new Set(params.filter((param) => param.optional).map((param) => param.name))
}

/** The object schema of URL params no schema declares: each a string, as the router hands it over. */
function urlParamsSchema (params: PathParam[]): Schema {
  // Null-prototype: a param named `__proto__` is a property like any other.
  const properties: Record<string, Schema> = Object.create(null)
  for (const { name, pattern } of params) {
    const usable = usablePattern(pattern)
    properties[name] = usable === undefined ? { type: 'string' } : { type: 'string', pattern: usable }
  }
  return { type: 'object', properties, required: params.filter((param) => !param.optional).map((param) => param.name) }
}

/**
 * The header params: the properties of `schema.headers`, under the names it declares, but those that are
 * never params (the connection's, the entity's, `authorization` and `cookie`: see isHeaderParam), which
 * the schema of the source leaves out, from its `required` too. A headers schema without properties, or
 * with none left, adds no source.
 */
export function addHeaderParamSource (command: CommandSource, routeSchema: Record<string, unknown> | undefined): void {
  if (routeSchema?.headers === undefined) return
  const schema = schemaObject(routeSchema.headers, command.route, 'schema.headers')
  const properties = propertiesOf(schema)
  if (properties === undefined) return
  const names = Object.keys(properties).filter(isHeaderParam)
  if (names.length === 0) return
  const kept: Record<string, unknown> = Object.create(null)
  for (const name of names) kept[name] = properties[name]
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => names.includes(name)) : []
  command.paramSources.push({ where: `${command.route} schema.headers`, schema: { ...schema, properties: kept, required }, place: 'header' })
}

/**
 * Params derived from the route's own schemas, in this order: path params, then `schema.headers`, then
 * `schema.querystring` (or `schema.query`, which Fastify takes for it, after this hook), then `schema.body`.
 */
export function addRouteParamSources (command: CommandSource, routeSchema: Record<string, unknown> | undefined): void {
  addPathParamSources(command, routeSchema)
  addHeaderParamSource(command, routeSchema)
  if (routeSchema === undefined) return
  if (routeSchema.querystring !== undefined) addSchemaSource(command, routeSchema.querystring, 'schema.querystring', 'query')
  else if (routeSchema.query !== undefined) addSchemaSource(command, routeSchema.query, 'schema.query', 'query')
  if (routeSchema.body !== undefined) addBodySource(command, routeSchema.body)
}

/**
 * The body's params: its properties, or, for a body schema that is not an object with properties (an
 * array, a string, a map), the one param `body` carrying the whole body, required unless the schema lets
 * a call send no body at all (it declares no type: `{}`, `Type.Unknown()`). A path or query param of that
 * name would be ambiguous: refused.
 */
function addBodySource (command: CommandSource, body: unknown): void {
  const schema = schemaObject(body, command.route, 'schema.body')
  if (isObjectWithProperties(schema)) {
    command.paramSources.push({ where: `${command.route} schema.body`, schema, place: 'body' })
    return
  }
  const clash = command.paramSources.find((source) => Object.hasOwn(propertiesOf(source.schema) as object, WHOLE_BODY_PARAM))
  if (clash !== undefined) {
    throw new FST_SVC_PARAMS_DECLARED_TWICE(`route ${command.route}: its body schema is not an object with properties, so the whole body is the param "${WHOLE_BODY_PARAM}", and ${clash.where} also declares a param "${WHOLE_BODY_PARAM}". Rename that param, or give the body an object schema with properties.`)
  }
  // Null-prototype, as every properties map the plugin builds.
  const properties: Record<string, Schema> = Object.create(null)
  properties[WHOLE_BODY_PARAM] = schema
  const wrapper = { type: 'object', properties, required: declaresNoType(schema) ? [] : [WHOLE_BODY_PARAM] }
  command.paramSources.push({ where: `${command.route} schema`, schema: wrapper, place: 'body', wholeBody: true })
}

/** The keywords that decide which JSON values a schema takes; a schema with none takes any, a missing body too. */
const TYPE_KEYWORDS = ['type', '$ref', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', 'not', 'if']

function declaresNoType (schema: Schema): boolean {
  return TYPE_KEYWORDS.every((keyword) => schema[keyword] === undefined)
}

function addSchemaSource (command: CommandSource, schema: unknown, field: string, place: ParamPlace): void {
  command.paramSources.push({ where: `${command.route} ${field}`, schema: objectSchema(schema, command.route, field), place })
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
  let schema = readSchema(response[code]) as Schema
  const content = isPlainObject(schema) ? schema.content : undefined
  if (isPlainObject(content)) {
    const media = content['application/json'] ?? Object.values(content)[0]
    // An empty content map declares no body. An entry without a schema is refused by Fastify itself.
    if (!isPlainObject(media)) return undefined
    schema = readSchema(media.schema) as Schema
  }
  return { where: `${route} schema.response.${code}`, schema, fromResponse: true }
}
