import type { ManifestHints } from '../manifest/types.js'
import { isPlainObject, type JsonSchema } from '../options.js'
import { assertDescription, assertName, invalid } from './checks.js'
import { objectSchema, schemaObject } from './route-schemas.js'
import type { CommandSource } from './sources.js'

export type SvcHints = ManifestHints

/** The `svc` route option: tags a route as a command of the manifest. */
export interface SvcRouteOptions {
  /** Command name; default derived from the URL (`/carts/:id/items` → `carts.items`). */
  name?: string
  description: string
  /** Object schema of the params; installed as the route's body (POST/PUT/PATCH) or querystring schema. */
  params?: JsonSchema
  returns?: JsonSchema
  tags?: string[]
  hints?: SvcHints
  auth?: 'required'
}

const SVC_KEYS = new Set(['name', 'description', 'params', 'returns', 'tags', 'hints', 'auth'])

/** Checks the `svc` option and copies what the manifest needs of it into a new command. */
export function readSvcOption (svc: unknown, method: string, url: string): CommandSource {
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
