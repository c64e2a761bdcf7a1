import type { Tool } from '@modelcontextprotocol/server'
import { propertiesOf, type Schema } from '../schema/schema.js'
import type { CommandRoute } from '../assemble/command-route.js'
import { WHOLE_BODY_PARAM } from '../collect/sources.js'
import type { Catalog } from '../catalog.js'
import { FST_SVC_DUPLICATE_NAME, FST_SVC_INVALID_NAME } from '../errors.js'
import { SchemaBundle, type ResolveSchema } from '../schema/bundle.js'
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_VALUES } from '../schema/keywords.js'
import { DESCRIPTOR_KEYWORDS } from '../manifest/keywords.js'
import { isPlainObject } from '../util/objects.js'
import { setOwn } from '../util/own-key.js'
import { annotationsOf, toolNames, toolTitleOf } from './tools.js'

/**
 * The dialect of route schemas: Fastify validates with Ajv's draft-07. Named, because MCP clients read a
 * schema without `$schema` as 2020-12, where some draft-07 forms (a tuple's `items` array) mean another thing.
 */
const FASTIFY_DIALECT = 'http://json-schema.org/draft-07/schema#'

/** The SDK types a schema's properties as JSON values; these are JSON Schemas copied as JSON. */
export type Properties = NonNullable<Tool['inputSchema']['properties']>

export interface Tools {
  /** In the manifest's order: by command name. */
  tools: Tool[]
  /** The command each tool calls. */
  byTool: Map<string, string>
}

/**
 * A tool per command of the catalog: its title from its name, its description from the manifest, its
 * annotations from its hints and method, its input schema from the route's own schemas, and its output
 * schema from the route's response schema when that is an object. Tool names clients would refuse, and
 * clashes, reject `ready()`.
 */
export function catalogTools (catalog: Catalog, resolve: ResolveSchema): Tools {
  const commands = catalog.manifest.commands
  const { byTool, invalid, clashes } = toolNames(Object.keys(commands))
  const fix = 'Set svc.name on the route to another name, or turn the mcp option off.'
  if (invalid.length > 0) throw new FST_SVC_INVALID_NAME(`MCP tools: ${invalid.join('; ')}. ${fix}`)
  if (clashes.length > 0) throw new FST_SVC_DUPLICATE_NAME(`MCP tools: ${clashes.join('; ')}. ${fix}`)
  const tools: Tool[] = []
  for (const [name, command] of byTool) {
    const { description, hints } = commands[command]
    const route = catalog.command(command) as CommandRoute
    const tool: Tool = { name, title: toolTitleOf(command), description, inputSchema: inputSchemaOf(route, resolve), annotations: annotationsOf(hints, route.method) }
    const outputSchema = outputSchemaOf(route, resolve)
    if (outputSchema !== undefined) tool.outputSchema = outputSchema
    tools.push(tool)
  }
  return { tools, byTool }
}

/** The tools of the commands `visible` keeps, in the same order. */
export function toolsView (all: Tools, visible: (command: string) => boolean): Tools {
  const byTool = new Map<string, string>()
  for (const [tool, command] of all.byTool) if (visible(command)) byTool.set(tool, command)
  return { tools: all.tools.filter((tool) => byTool.has(tool.name)), byTool }
}

/**
 * The JSON Schema of a command's params, as its route validates them: each param's schema as written
 * (enums, bounds, formats, descriptions, defaults), path params first and required, `required` as the
 * route applies it (a param with a default may be left out), references into `$defs`.
 */
export function inputSchemaOf (command: CommandRoute, resolve: ResolveSchema): Tool['inputSchema'] {
  const bundle = new SchemaBundle(resolve)
  const properties: Record<string, object> = Object.create(null)
  const required: string[] = []
  let additionalProperties: unknown
  // The catalog lists every URL param among the path params, a string where no schema declares it.
  for (const { schema, place, optional, wholeBody } of command.paramSchemas) {
    const params = propertiesOf(schema) as Record<string, Schema>
    // The whole-body param's schema is the route's body schema itself, what its pointers resolve against.
    const resource = wholeBody === true ? bundle.resource(params[WHOLE_BODY_PARAM], place) : bundle.resource(schema, place)
    const listed = Array.isArray(schema.required) ? schema.required as unknown[] : []
    for (const name of Object.keys(params)) {
      properties[name] = bundle.copy(params[name], resource) as object
      const needed = place === 'path' ? optional?.has(name) !== true : listed.includes(name) && params[name].default === undefined
      if (needed) required.push(name)
    }
    // Params the command does not declare go to this place: its schema says whether they are welcome.
    if (place === command.extraPlace && schema.additionalProperties !== undefined) additionalProperties = bundle.copy(schema.additionalProperties, resource)
  }
  const inputSchema: Tool['inputSchema'] = { $schema: FASTIFY_DIALECT, type: 'object', properties: properties as Properties }
  if (required.length > 0) inputSchema.required = required
  if (additionalProperties !== undefined) inputSchema.additionalProperties = additionalProperties
  if (Object.keys(bundle.defs).length > 0) inputSchema.$defs = bundle.defs
  return inputSchema
}

/**
 * What Fastify's serializer (fast-json-stringify) never checks of a value: the bounds, lengths, patterns,
 * formats and allowed values a response schema declares. A route may send a value outside them, and an MCP
 * client refuses a result whose `structuredContent` breaks its tool's output schema (measured on the
 * official Fastify demo: a task's `assigned_user_id` of 0 against `minimum: 1` failed two tools).
 */
const UNCHECKED_BY_SERIALIZER: ReadonlySet<string> = new Set([
  ...DESCRIPTOR_KEYWORDS.filter(({ tightens }) => tightens !== 'never').map(({ key }) => key),
  'multipleOf', 'uniqueItems', 'minProperties', 'maxProperties', 'contains', 'minContains', 'maxContains'
])

/** A copy of a schema without what the serializer does not check, at every depth. */
function serializedShape (schema: unknown): unknown {
  if (!isPlainObject(schema)) return schema
  const shape: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (UNCHECKED_BY_SERIALIZER.has(key)) continue
    let kept = value
    if (SUBSCHEMA_VALUES.has(key)) kept = Array.isArray(value) ? value.map(serializedShape) : serializedShape(value)
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) kept = value.map(serializedShape)
    else if (SUBSCHEMA_MAPS.has(key) && isPlainObject(value)) kept = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, serializedShape(sub)]))
    setOwn(shape, key, kept)
  }
  return shape
}

/**
 * The route's response schema as a tool's output schema, when it describes an object (MCP requires one),
 * as far as Fastify's serializer holds a success to it (types, properties, `required`), so a tool result's
 * `structuredContent` conforms to it. References go under `$defs`; a response schema that is only a
 * reference is that definition.
 */
export function outputSchemaOf (command: CommandRoute, resolve: ResolveSchema): Tool['outputSchema'] {
  if (command.response === undefined) return undefined
  const bundle = new SchemaBundle(resolve)
  let copy = bundle.copy(command.response, bundle.resource(command.response, 'response')) as Record<string, unknown>
  const ref = typeof copy.$ref === 'string' && Object.keys(copy).length === 1 ? /^#\/\$defs\/([\w.-]+)$/.exec(copy.$ref) : null
  // Keys under $defs are made of letters, digits, "_", "." and "-": no pointer escapes to undo.
  if (ref !== null) copy = { ...bundle.defs[ref[1]] as Record<string, unknown> }
  if (copy.type !== 'object') return undefined
  const outputSchema = { $schema: FASTIFY_DIALECT, ...serializedShape(copy) as object } as NonNullable<Tool['outputSchema']>
  // Each definition is a schema; the map of them is not (a type may be named `format` or `enum`).
  if (Object.keys(bundle.defs).length > 0) outputSchema.$defs = Object.fromEntries(Object.entries(bundle.defs).map(([name, definition]) => [name, serializedShape(definition)])) as Record<string, object>
  return outputSchema
}
