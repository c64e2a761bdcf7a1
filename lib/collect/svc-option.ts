import type { ManifestHints } from '../manifest/types.js'
import { type JsonSchema } from '../options.js'
import { isPlainObject } from '../util/objects.js'
import { assertDescription, assertName, invalid, isDescription } from './checks.js'
import { objectSchema, schemaObject } from './route-schemas.js'
import { inspectSchema } from '../schema/check.js'
import type { CommandSource } from './sources.js'

export type SvcHints = ManifestHints

/** The `svc` route option: tags a route as a command of the manifest. */
export interface SvcRouteOptions {
  /** Command name; default derived from the URL (`/carts/:id/items` → `carts.items`). */
  name?: string
  /** Required; defaults to the route's `schema.description`, then `schema.summary` (as @fastify/swagger reads them). */
  description?: string
  /** Object schema of the params; installed as the route's body (POST/PUT/PATCH) or querystring schema. */
  params?: JsonSchema
  returns?: JsonSchema
  /** Defaults to the route's `schema.tags`. */
  tags?: string[]
  hints?: SvcHints
  auth?: 'required'
}

const SVC_KEYS = new Set(['name', 'description', 'params', 'returns', 'tags', 'hints', 'auth'])

/**
 * Checks the `svc` option and copies what the manifest needs of it into a new command. A route documented
 * for @fastify/swagger lends its `schema.description` (or `schema.summary`) and `schema.tags`, so `svc: {}`
 * is enough there.
 */
export function readSvcOption (svc: unknown, method: string, url: string, routeSchema: Record<string, unknown> | undefined): CommandSource {
  const route = `${method} ${url}`
  if (!isPlainObject(svc)) invalid(route, 'svc', 'an object { description, ... }', svc)
  for (const key of Object.keys(svc)) {
    if (!SVC_KEYS.has(key)) invalid(route, `svc.${key}`, `absent: svc takes ${[...SVC_KEYS].join(', ')}`, svc[key])
  }
  const description = svc.description ?? documented(routeSchema?.description) ?? documented(routeSchema?.summary)
  // Checked first so that the message's parts are built only for a route that fails.
  if (!isDescription(description)) {
    assertDescription(description, `route ${route} (svc.description)`, svc.description === undefined ? ' Set svc.description, or give the route schema a description or summary.' : '')
  }
  const command: CommandSource = { route, method, url, description, paramSources: [] }
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
    if (svc.auth !== 'required') invalid(route, 'svc.auth', '"required" (or left out)', svc.auth)
    command.auth = 'required'
  }
  return command
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
