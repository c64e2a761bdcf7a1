import type { ManifestHints, ManifestPagination, ManifestRateLimit } from '../manifest/types.js'
import { type JsonSchema } from '../option-types.js'
import { MAX_DEADLINE } from '../options.js'
import { isPlainObject } from '../util/objects.js'
import { FST_SVC_MISSING_DESCRIPTION } from '../errors.js'
import { assertName, invalid, isDescription } from './checks.js'
import { objectSchema, schemaObject } from './route-schemas.js'
import { inspectSchema } from '../schema/check.js'
import type { CommandSource } from './sources.js'
import { readSvcRateLimit } from './rate-limit.js'
import { readPaginated } from './pagination.js'

export type SvcHints = ManifestHints

/** The `svc` route option: tags a route as a command of the manifest. */
export interface SvcRouteOptions {
  /** Command name; default derived from the URL (`/carts/:id/items` → `carts.items`). */
  name?: string
  /**
   * Defaults to the route's `schema.description`, then `schema.summary` (as @fastify/swagger reads them), then
   * the route's method and URL (`GET /roles/:id`), with a warning at `ready()` (or an error with `requireDescriptions`).
   */
  description?: string
  /** Object schema of the params; installed as the route's body (POST/PUT/PATCH) or querystring schema. */
  params?: JsonSchema
  returns?: JsonSchema
  /** Defaults to the route's `schema.tags`. */
  tags?: string[]
  hints?: SvcHints
  /**
   * `'required'`: a verified credential is needed; `'optional'`: one is checked when sent; `'hidden'`: like
   * `'required'`, and the command exists only for a credential that verifies and grants every `scopes`.
   */
  auth?: 'required' | 'optional' | 'hidden'
  /** Every scope the credential must grant (needs `auth`); a missing one answers 403. */
  scopes?: string[]
  /** Worked calls, served in the manifest; each one's params are checked by the route's validation at `ready()`. */
  examples?: SvcExample[]
  /** Defaults to the route schema's `deprecated`. */
  deprecated?: boolean
  /** The route replies with a stream (SSE, NDJSON, text) whose pieces a streamed execute relays as they come. */
  stream?: boolean
  /** The command's own deadline in milliseconds for execute, pipeline steps and MCP (`0`: none); default `invoke.timeout`. */
  timeout?: number
  /** Requests a caller may make per window; default: the route's @fastify/rate-limit `config.rateLimit`, when it says it in plain values. */
  rateLimit?: SvcRateLimit
  /** The route answers one page of a list (Surf §8); `true`: a cursor walk with Surf's defaults. Its params must include `cursor` (or `offset`) and `limit`. */
  paginated?: boolean | SvcPagination
}

/** `svc.rateLimit`: how many requests a caller may make in each window of milliseconds, as the manifest serves it. */
export type SvcRateLimit = ManifestRateLimit

/**
 * `svc.paginated` as an object: the manifest's `paginated`, where what is left out takes Surf's default.
 * `style`: default `'cursor'`, the caller sends back the page's `next` field as `cursor`; `'offset'`: it
 * counts items. `defaultLimit`: default 20; `maxLimit`: default 100. The fields of the result: `items`
 * holds the page's items (default `items`), `next` the next cursor (default `nextCursor`, cursor style
 * only), `total` the number of items across pages (default `total`).
 */
export type SvcPagination = Partial<ManifestPagination>

/** One worked call of a command: its params as a caller sends them, and what it returns. */
export interface SvcExample {
  title?: string
  params: Record<string, unknown>
  result?: unknown
}

/** `requireDescriptions`, and where a missing description is reported when it is a problem. */
export interface DescriptionRule {
  require: boolean
  report: (error: Error) => void
}

const SVC_KEYS = new Set(['name', 'description', 'params', 'returns', 'tags', 'hints', 'auth', 'scopes', 'examples', 'deprecated', 'stream', 'timeout', 'rateLimit', 'paginated'])

/**
 * Checks the `svc` option and copies what the manifest needs of it into a new command. A route documented
 * for @fastify/swagger lends its `schema.description` (or `schema.summary`) and `schema.tags`, so `svc: {}`
 * is enough there.
 */
export function readSvcOption (svc: unknown, method: string, url: string, routeSchema: Record<string, unknown> | undefined, descriptions: DescriptionRule): CommandSource {
  const route = `${method} ${url}`
  // `svc: true` tags a route whose schemas say everything, as `svc: {}` does.
  if (svc === true) svc = {}
  if (!isPlainObject(svc)) invalid(route, 'svc', 'true or an object { description, ... }', svc)
  for (const key of Object.keys(svc)) {
    if (!SVC_KEYS.has(key)) invalid(route, `svc.${key}`, `absent: svc takes ${[...SVC_KEYS].join(', ')}`, svc[key])
  }
  const command: CommandSource = { route, method, url, description: route, paramSources: [] }
  const description = svc.description ?? documented(routeSchema?.description) ?? documented(routeSchema?.summary)
  if (isDescription(description)) command.description = description
  else readMissingDescription(command, svc.description, descriptions)
  if (svc.name !== undefined) {
    assertName('command', svc.name, `route ${route}, svc.name`)
    command.name = svc.name
  }
  if (svc.params !== undefined) command.svcParams = objectSchema(svc.params, route, 'svc.params')
  if (svc.returns !== undefined) {
    const where = `${route} svc.returns`
    const schema = schemaObject(svc.returns, route, 'svc.returns')
    inspectSchema(schema, where)
    command.returns = { where, schema }
  }
  if (svc.tags !== undefined) command.tags = readTags(svc.tags, route, 'svc.tags')
  else if (routeSchema?.tags !== undefined) command.tags = readTags(routeSchema.tags, route, 'schema.tags')
  if (svc.hints !== undefined) command.hints = readHints(svc.hints, route)
  if (svc.auth !== undefined) {
    if (svc.auth !== 'required' && svc.auth !== 'optional' && svc.auth !== 'hidden') invalid(route, 'svc.auth', '"required", "optional" or "hidden" (or left out)', svc.auth)
    command.auth = svc.auth
  }
  if (svc.scopes !== undefined) command.scopes = readScopes(svc.scopes, route, command.auth !== undefined)
  if (svc.examples !== undefined) command.examples = readExamples(svc.examples, route)
  const deprecated = svc.deprecated ?? routeSchema?.deprecated
  if (deprecated !== undefined) {
    if (typeof deprecated !== 'boolean') invalid(route, svc.deprecated === undefined ? 'schema.deprecated' : 'svc.deprecated', 'a boolean', deprecated)
    if (deprecated) command.deprecated = true
  }
  if (svc.stream !== undefined) {
    if (typeof svc.stream !== 'boolean') invalid(route, 'svc.stream', 'a boolean', svc.stream)
    if (svc.stream) command.stream = true
  }
  if (svc.timeout !== undefined) {
    if (!Number.isSafeInteger(svc.timeout) || (svc.timeout as number) < 0 || (svc.timeout as number) > MAX_DEADLINE) {
      invalid(route, 'svc.timeout', `a whole number of milliseconds, 0 (no deadline) to ${MAX_DEADLINE}`, svc.timeout)
    }
    command.timeout = svc.timeout as number
  }
  if (svc.rateLimit !== undefined) command.rateLimit = readSvcRateLimit(svc.rateLimit, route)
  if (svc.paginated !== undefined) command.paginated = readPaginated(svc.paginated, route)
  return command
}

/**
 * What a route without a description gets: with `requireDescriptions`, or when `svc.description` is given
 * and is no description (empty, blank, not a string), `FST_SVC_MISSING_DESCRIPTION`, reported without
 * stopping the route's other checks, so that one boot lists every problem of the route. Else the
 * description stays its method and URL, and the route is counted for `ready()`'s warning.
 */
function readMissingDescription (command: CommandSource, given: unknown, { require, report }: DescriptionRule): void {
  if (given === undefined && !require) {
    command.derivedDescription = true
    return
  }
  const hint = given === undefined ? ' Set svc.description, or give the route schema a description or summary.' : ''
  report(new FST_SVC_MISSING_DESCRIPTION(`route ${command.route} (svc.description) needs a non-empty "description" string.${hint}`))
}

function readScopes (scopes: unknown, route: string, withAuth: boolean): string[] {
  const expected = 'a non-empty array of scope strings without spaces, such as ["articles:write"]'
  if (!Array.isArray(scopes) || scopes.length === 0) invalid(route, 'svc.scopes', expected, scopes)
  for (const scope of scopes) {
    // RFC 6749 §3.3 scope-token: printable ASCII but space, '"' and '\\'.
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) invalid(route, 'svc.scopes', expected, scopes)
  }
  if (!withAuth) invalid(route, 'svc.scopes', 'set together with svc.auth (\'required\', \'optional\' or \'hidden\'): scopes are read from the credential', scopes)
  return [...new Set(scopes as string[])]
}

function readExamples (examples: unknown, route: string): SvcExample[] {
  if (!Array.isArray(examples)) invalid(route, 'svc.examples', 'an array of { title?, params, result? }', examples)
  return examples.map((example: unknown, index) => {
    const field = `svc.examples[${index}]`
    if (!isPlainObject(example)) invalid(route, field, 'an object { title?, params, result? }', example)
    for (const key of Object.keys(example)) {
      if (key !== 'title' && key !== 'params' && key !== 'result') invalid(route, `${field}.${key}`, 'absent: an example has title, params and result', example[key])
    }
    if (example.title !== undefined && !isDescription(example.title)) invalid(route, `${field}.title`, 'a non-empty string', example.title)
    if (!isPlainObject(example.params)) invalid(route, `${field}.params`, 'an object of param values, as a caller sends them', example.params)
    // A copy that is plain JSON: what the manifest serves, whatever the app does to its object afterwards,
    // with its keys in the documented order, `{ title?, params, result? }`.
    const params = jsonCopy(example.params, route, `${field}.params`) as Record<string, unknown>
    const copy: SvcExample = example.title === undefined ? { params } : { title: example.title as string, params }
    if (example.result !== undefined) copy.result = jsonCopy(example.result, route, `${field}.result`)
    return copy
  })
}

/** A deep copy through JSON, which refuses what the manifest cannot serve (a BigInt, a cycle) with the field named. */
function jsonCopy (value: unknown, route: string, field: string): unknown {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    invalid(route, field, `JSON (${(error as Error).message})`, value)
  }
  if (text === undefined) invalid(route, field, 'JSON', value)
  return JSON.parse(text)
}

/** A documentation string of the route schema, when it is one: an empty one is no description. */
function documented (text: unknown): string | undefined {
  return typeof text === 'string' && text.trim() !== '' ? text : undefined
}

function readTags (tags: unknown, route: string, field: string): string[] {
  const expected = field === 'svc.tags' ? 'an array of non-empty strings' : 'an array of non-empty strings (or set svc.tags)'
  if (!Array.isArray(tags)) invalid(route, field, expected, tags)
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.trim() === '') invalid(route, field, expected, tags)
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
