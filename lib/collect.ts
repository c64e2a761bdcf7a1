import type { RouteOptions } from 'fastify'
import {
  FST_SVC_INVALID_ROUTE_OPTION, FST_SVC_MULTI_METHOD, FST_SVC_PARAMS_DECLARED_TWICE, FST_SVC_UNKNOWN_REF, FST_SVC_UNMAPPABLE_SCHEMA
} from './errors.js'
import { assertDescription, assertName } from './names.js'
import { isPlainObject } from './options.js'
import { isObjectWithProperties, refName, type Schema, type TypeNames } from './schema-map.js'
import type { SvcHints } from './types.js'

/** Where a command's params come from: `svc.params`, or the route's own schemas in this order. */
export interface ParamSource {
  where: string
  schema: Schema
  /** Path params are always required: the URL carries them. */
  path: boolean
}

/** What the manifest needs of one tagged route, copied at `onRoute` time (Fastify mutates the options later). */
export interface CommandSource {
  /** `GET /carts/:id/items`, for error messages. */
  route: string
  method: string
  url: string
  /** The explicit `svc.name`, or undefined to derive it from the URL. */
  name?: string
  description: string
  paramSources: ParamSource[]
  /** `svc.params`, installed as the validation schema of the route and of its twins. */
  svcParams?: Schema
  returns?: { where: string, schema: Schema }
  tags?: string[]
  hints?: SvcHints
  auth?: 'required'
}

const SVC_KEYS = new Set(['name', 'description', 'params', 'returns', 'tags', 'hints', 'auth'])
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
/** Where params are read from when `svc.params` is absent, in this order. */
const PARAM_PLACES = ['params', 'querystring', 'body'] as const
const RESPONSE_CODES = ['200', '201', '2xx']

/** Called for every route of a command, its HEAD twin and its prefixed twin included (auth hooks attach here). */
export type CommandRouteListener = (routeOptions: RouteOptions, command: CommandSource) => void

/**
 * The `onRoute` hook: turns routes with a `svc` option into command sources. Problems are recorded and
 * raised from `onReady`, so that `ready()` rejects with the first of them and nothing is served.
 */
export class RouteCollector {
  readonly commands: CommandSource[] = []
  readonly errors: Error[] = []
  /** The commands collected for each `svc` object, to recognise Fastify's HEAD and prefix twins. */
  private readonly seen = new Map<object, CommandSource[]>()

  constructor (private readonly types: TypeNames, private readonly onCommandRoute: CommandRouteListener) {}

  readonly onRoute = (routeOptions: RouteOptions): void => {
    const svc: unknown = (routeOptions as { svc?: unknown }).svc
    if (svc === undefined) return
    try {
      this.collect(routeOptions, svc)
    } catch (error) {
      this.errors.push(error as Error)
    }
  }

  private collect (routeOptions: RouteOptions, svc: unknown): void {
    const method = singleMethod(routeOptions)
    const url = routeOptions.url as string
    const twinOf = this.twinOf(svc, method, url)
    if (twinOf !== undefined) {
      if (twinOf.svcParams !== undefined) installParams(routeOptions, method, twinOf.svcParams, twinOf.route)
      this.onCommandRoute(routeOptions, twinOf)
      return
    }
    const command = readSvcOption(svc, method, url)
    if (command.svcParams !== undefined) {
      this.assertRefsKnown(command.svcParams, `${command.route} svc.params`)
      installParams(routeOptions, method, command.svcParams, command.route)
      command.paramSources.push({ where: `${command.route} svc.params`, schema: command.svcParams, path: false })
    } else {
      addRouteParamSources(command, routeOptions)
    }
    command.returns ??= responseSchema(routeOptions, command.route)
    this.commands.push(command)
    this.remember(svc as object, command)
    this.onCommandRoute(routeOptions, command)
  }

  /** Drops what was collected once the manifest is built: Fastify takes no routes after `ready()`. */
  release (): void {
    this.commands.length = 0
    this.seen.clear()
  }

  /** The command this route repeats: the auto HEAD route of a GET, or the second URL of a prefixed `'/'`. */
  private twinOf (svc: unknown, method: string, url: string): CommandSource | undefined {
    if (!isPlainObject(svc)) return undefined
    const earlier = this.seen.get(svc)
    if (earlier === undefined) return undefined
    for (const command of earlier) {
      const sameMethod = command.method === method || (method === 'HEAD' && command.method === 'GET')
      if (sameMethod && withoutTrailingSlash(command.url) === withoutTrailingSlash(url)) return command
    }
    return undefined
  }

  private remember (svc: object, command: CommandSource): void {
    const earlier = this.seen.get(svc)
    if (earlier === undefined) this.seen.set(svc, [command])
    else earlier.push(command)
  }

  /**
   * `svc.params` becomes the route's validation schema, so a `$ref` in it must resolve now: otherwise the
   * validator compiler fails first, with an error that does not name the command.
   */
  private assertRefsKnown (schema: unknown, where: string): void {
    for (const ref of refsIn(schema)) {
      if (refName(ref, this.types) === undefined) {
        throw new FST_SVC_UNKNOWN_REF(`${where} refers to "${ref}", which is not a registered type. Register it with the "types" option (or app.svc.type() before this route).`)
      }
    }
  }
}

function withoutTrailingSlash (url: string): string {
  return url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url
}

function refsIn (value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found)
  } else if (isPlainObject(value)) {
    if (typeof value.$ref === 'string') found.push(value.$ref)
    for (const child of Object.values(value)) refsIn(child, found)
  }
  return found
}

function singleMethod (routeOptions: RouteOptions): string {
  if (typeof routeOptions.method === 'string') return routeOptions.method
  const methods = ([] as string[]).concat(routeOptions.method)
  const named = methods.filter((method) => method !== 'HEAD')
  if (named.length > 1) {
    throw new FST_SVC_MULTI_METHOD(`route ${methods.join(',')} ${routeOptions.url} answers ${named.join(' and ')}. A command has one method: declare one route per method, each with its own svc.name.`)
  }
  return named[0] ?? 'HEAD'
}

/** Checks the `svc` option and copies what the manifest needs of it into a new command. */
function readSvcOption (svc: unknown, method: string, url: string): CommandSource {
  const route = `${method} ${url}`
  if (!isPlainObject(svc)) invalid(route, 'svc', 'an object { description, ... }', svc)
  for (const key of Object.keys(svc)) {
    if (!SVC_KEYS.has(key)) invalid(route, `svc.${key}`, `absent: svc takes ${[...SVC_KEYS].join(', ')}`, svc[key])
  }
  assertDescription(svc.description, `route ${route} (svc.description)`)
  const command: CommandSource = { route, method, url, description: svc.description, paramSources: [] }
  if (svc.name !== undefined) {
    assertName('command', svc.name, `route ${route}, svc.name`)
    command.name = svc.name
  }
  if (svc.params !== undefined) command.svcParams = objectSchema(svc.params, route, 'svc.params')
  if (svc.returns !== undefined) command.returns = { where: `${route} svc.returns`, schema: schemaObject(svc.returns, route, 'svc.returns') }
  if (svc.tags !== undefined) command.tags = readTags(svc.tags, route)
  if (svc.hints !== undefined) command.hints = readHints(svc.hints, route)
  if (svc.auth !== undefined) {
    if (svc.auth !== 'required') invalid(route, 'svc.auth', '"required" (or left out)', svc.auth)
    command.auth = 'required'
  }
  return command
}

function invalid (route: string, field: string, expected: string, actual: unknown): never {
  throw new FST_SVC_INVALID_ROUTE_OPTION(`route ${route}: ${field} must be ${expected}; got ${JSON.stringify(actual) ?? String(actual)}.`)
}

function schemaObject (value: unknown, route: string, field: string): Schema {
  if (!isPlainObject(value)) invalid(route, field, 'a JSON Schema object', value)
  return value
}

function objectSchema (value: unknown, route: string, field: string): Schema {
  const schema = schemaObject(value, route, field)
  if (!isObjectWithProperties(schema)) {
    throw new FST_SVC_UNMAPPABLE_SCHEMA(`route ${route}: ${field} must be an object schema with properties, for example Type.Object({ q: Type.String() }).`)
  }
  return schema
}

function readTags (tags: unknown, route: string): string[] {
  if (!Array.isArray(tags)) invalid(route, 'svc.tags', 'an array of non-empty strings', tags)
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.trim() === '') invalid(route, 'svc.tags', 'an array of non-empty strings', tags)
  }
  return tags.slice()
}

function readHints (hints: unknown, route: string): SvcHints {
  if (!isPlainObject(hints)) invalid(route, 'svc.hints', 'an object { idempotent?, sideEffects? }', hints)
  for (const key of Object.keys(hints)) {
    if (key !== 'idempotent' && key !== 'sideEffects') invalid(route, `svc.hints.${key}`, 'absent: hints are idempotent and sideEffects', hints[key])
    if (typeof hints[key] !== 'boolean') invalid(route, `svc.hints.${key}`, 'a boolean', hints[key])
  }
  // Written in this order whatever the order given: the manifest and its checksum rely on it.
  const read: SvcHints = {}
  if (hints.idempotent !== undefined) read.idempotent = hints.idempotent as boolean
  if (hints.sideEffects !== undefined) read.sideEffects = hints.sideEffects as boolean
  return read
}

/** Installs `svc.params` as the route's body or querystring schema, without touching the user's objects. */
function installParams (routeOptions: RouteOptions, method: string, params: Schema, route: string): void {
  const place = BODY_METHODS.has(method) ? 'body' : 'querystring'
  const schema = (routeOptions.schema ?? {}) as Record<string, unknown>
  if (schema[place] !== undefined) {
    throw new FST_SVC_PARAMS_DECLARED_TWICE(`route ${route} has both svc.params and schema.${place}. Declare params once: keep svc.params and remove schema.${place}, or drop svc.params to derive them from the schema.`)
  }
  routeOptions.schema = { ...schema, [place]: params }
}

function addRouteParamSources (command: CommandSource, routeOptions: RouteOptions): void {
  const schema = (routeOptions.schema ?? {}) as Record<string, unknown>
  for (const place of PARAM_PLACES) {
    if (schema[place] === undefined) continue
    const where = `${command.route} schema.${place}`
    command.paramSources.push({ where, schema: objectSchema(schema[place], command.route, `schema.${place}`), path: place === 'params' })
  }
}

/** The success response schema: `200`, `201` or `2xx`, the first found; a `content` map gives its JSON schema. */
function responseSchema (routeOptions: RouteOptions, route: string): CommandSource['returns'] {
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
