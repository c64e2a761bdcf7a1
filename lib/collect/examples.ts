import type { FastifySchemaCompiler, FastifyInstance, RouteOptions } from 'fastify'
import { FST_SVC_INVALID_EXAMPLE } from '../errors.js'
import { pathParamsOf } from '../route-url.js'
import { readSchema } from '../schema/fluent.js'
import { propertiesOf } from '../schema/schema.js'
import { isPlainObject } from '../util/objects.js'
import { svcParamsPlace } from './route-schemas.js'
import { WHOLE_BODY_PARAM, type CommandSource } from './sources.js'

/** The parts of a request a route validates, as Fastify names them. */
type HttpPart = 'params' | 'headers' | 'querystring' | 'body'
const PART_OF_PLACE = { path: 'params', header: 'headers', query: 'querystring', body: 'body' } as const

/** What checking a command's examples needs of its route, copied at `onRoute` time. */
export interface ExampleTarget {
  command: CommandSource
  /** The command's `svc.examples`: a target exists only for a command that has some. */
  examples: NonNullable<CommandSource['examples']>
  /** The instance the route was registered in: its validator compiler knows that context's shared schemas. */
  instance: FastifyInstance
  /** The route's own `validatorCompiler` option, when it has one. */
  compiler?: FastifySchemaCompiler<unknown>
  schemas: Partial<Record<HttpPart, unknown>>
}

export function exampleTarget (instance: FastifyInstance, routeOptions: RouteOptions, command: CommandSource, examples: NonNullable<CommandSource['examples']>): ExampleTarget {
  const schema = isPlainObject(routeOptions.schema) ? routeOptions.schema : {}
  const schemas: ExampleTarget['schemas'] = {}
  if (schema.params !== undefined) schemas.params = schema.params
  // Fastify takes `query` for `querystring` too.
  const querystring = schema.querystring ?? schema.query
  if (querystring !== undefined) schemas.querystring = querystring
  if (schema.body !== undefined) schemas.body = schema.body
  // The header params' own schema: the headers that are never params (`authorization`, …) are the caller's.
  const headers = command.paramSources.find((source) => source.place === 'header')
  if (headers !== undefined) schemas.headers = headers.schema
  const target: ExampleTarget = { command, examples, instance, schemas }
  if (routeOptions.validatorCompiler !== undefined) target.compiler = routeOptions.validatorCompiler as FastifySchemaCompiler<unknown>
  return target
}

/**
 * Checks every example's params with the validators the route itself uses (the compiler of the context it
 * was registered in, or its own), each param placed as a call through execute places it: path params in
 * the URL, the others where the command's params declare them (header params against the headers schema
 * less the headers that are never params), else in the body (POST, PUT, PATCH) or the query string. Runs at `ready()`, after Fastify compiled the routes, so the compiler knows every shared schema.
 */
export function checkExamples (targets: readonly ExampleTarget[]): Error[] {
  const problems: Error[] = []
  for (const target of targets) {
    const { command } = target
    for (const [index, example] of target.examples.entries()) {
      const named = `command ${command.route} (svc.examples[${index}]${example.title === undefined ? '' : ` "${example.title}"`})`
      const reason = refusal(target, example.params)
      if (reason !== undefined) problems.push(new FST_SVC_INVALID_EXAMPLE(`${named}: ${reason}. Fix the example's params, or the route's schema.`))
    }
  }
  return problems
}

/** Why the route would refuse a call with these params, or undefined. */
function refusal (target: ExampleTarget, params: Record<string, unknown>): string | undefined {
  const { command, schemas } = target
  const missing = pathParamsOf(command.url).filter((param) => !param.optional && !Object.hasOwn(params, param.name)).map((param) => param.name)
  if (missing.length > 0) return `path param ${missing.map((name) => `"${name}"`).join(', ')} missing`
  const parts: Record<HttpPart, Record<string, unknown>> = { params: {}, headers: {}, querystring: {}, body: {} }
  const wholeBody = command.paramSources.find((source) => source.wholeBody === true)
  for (const [name, value] of Object.entries(params)) {
    // Every param source is an object schema with properties: the collector refuses any other.
    const declared = command.paramSources.find((source) => Object.hasOwn(propertiesOf(source.schema) as object, name))
    const place = declared?.place ?? (wholeBody === undefined ? svcParamsPlace(command.method) : 'query')
    parts[PART_OF_PLACE[place]][name] = value
  }
  for (const part of ['params', 'headers', 'querystring', 'body'] as const) {
    const schema = schemas[part]
    if (schema === undefined) continue
    // The whole-body param is the body: left out, no body is sent.
    const data = part === 'body' && wholeBody !== undefined ? parts.body[WHOLE_BODY_PARAM] : parts[part]
    // A GET, HEAD or DELETE call sends no body: the route's body schema does not see one.
    if (part === 'body' && svcParamsPlace(command.method) !== 'body' && Object.keys(parts.body).length === 0) continue
    // Without header params, the caller's own headers (an API key, say) are what the route sees.
    if (part === 'headers' && Object.keys(parts.headers).length === 0) continue
    const reason = validate(target, part, readSchema(schema), data)
    if (reason !== undefined) return reason
  }
  return undefined
}

function validate (target: ExampleTarget, part: HttpPart, schema: unknown, data: unknown): string | undefined {
  const compile = target.compiler ?? (target.instance.validatorCompiler as FastifySchemaCompiler<unknown>)
  let check: (data: unknown) => unknown
  try {
    check = compile({ schema: schema as object, method: target.command.method, url: target.command.url, httpPart: part }) as typeof check
  } catch (error) {
    return `the route's ${part} schema does not compile (${(error as Error).message})`
  }
  // A copy: Fastify's Ajv coerces and fills in defaults, and the example is served as written.
  const result = check(structuredClone(data))
  const failed = result === false || (isPlainObject(result) && result.error !== undefined)
  if (!failed) return undefined
  const errors = (check as { errors?: Array<{ instancePath?: string, message?: string }> | null }).errors
  if (Array.isArray(errors) && errors.length > 0) {
    return errors.map((error) => `${part}${error.instancePath ?? ''} ${error.message ?? 'is invalid'}`).join('; ')
  }
  const error = isPlainObject(result) ? result.error : undefined
  return `${part} ${error instanceof Error ? error.message : 'is invalid'}`
}
