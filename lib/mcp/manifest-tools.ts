import type { Tool } from '@modelcontextprotocol/server'
import type { ManifestField, ManifestParam, ManifestProperty, ManifestType, ReadManifest } from '../manifest/types.js'
import { controlCharacters } from '../util/control-characters.js'
import type { Properties } from './catalog-tools.js'
import { annotationsOf, toolNames, toolTitleOf, type ToolServerInfo } from './tools.js'
import { ANY_TYPE, DESCRIPTOR_KEYWORDS, JSON_SCHEMA_TYPES } from '../manifest/keywords.js'

/** Every control character of the list: none belongs in a name. */
const CONTROLS = controlCharacters()
/** Those a description may not carry; tab and line feed lay text out, and stay. */
const HIDDEN = controlCharacters('\t\n')

/**
 * A tool per command of a manifest fetched from any service, with input schemas built from the manifest's
 * param types; `problems` lists the tool names clients would refuse, the clashes, and the commands whose
 * params (or the fields of their types) have control characters in their names. Whoever serves the
 * manifest wrote every text in it, and MCP clients show tools to people and models: descriptions lose
 * their control characters (`readable`), and a name, which a call must send back as it is, is refused.
 */
export function manifestTools (manifest: ReadManifest): { tools: Tool[], byTool: Map<string, string>, problems: string[] } {
  const { byTool, invalid, clashes } = toolNames(Object.keys(manifest.commands))
  const tools: Tool[] = []
  const unnamed: string[] = []
  for (const [name, command] of byTool) {
    const { description, params = {}, hints } = manifest.commands[command]
    const inputSchema = inputSchemaOfParams(params, manifest.types)
    unnamed.push(...controlledNames(inputSchema).map((what) => `command "${command}": ${what} has control characters in its name`))
    tools.push({ name, title: toolTitleOf(command), description: readable(description), inputSchema, annotations: annotationsOf(hints) })
  }
  return { tools, byTool, problems: [...invalid, ...clashes, ...unnamed] }
}

/**
 * The server's name, version and instructions (the manifest's description, then its `about`), readable. A
 * manifest without a version (the spec does not require one) gives an empty version, and one without
 * description or `about` no instructions.
 */
export function manifestServerInfo (manifest: ReadManifest): ToolServerInfo {
  const info: ToolServerInfo = { name: readable(manifest.name), version: readable(manifest.version ?? '') }
  const texts = [manifest.description, manifest.about].filter((text) => text !== undefined)
  if (texts.length > 0) info.instructions = readable(texts.join('\n\n'))
  return info
}

/** A text of the manifest without the control characters MCP clients would show raw or act on; tab and line feed kept. */
function readable (text: string): string {
  return text.replace(HIDDEN, '')
}

/** The descriptor's keywords after its `description`, which is text for people and is made `readable` instead. */
const KEYWORDS = DESCRIPTOR_KEYWORDS.filter(({ key }) => key !== 'description')

/**
 * The JSON Schema of a command's params from its manifest entry: each param as its descriptor says (type,
 * description, then every keyword of lib/manifest/keywords.ts), inline objects with their `properties` and
 * `required` list and arrays with their `items`, however deep; a registered type as a `$ref` to its
 * definition under `$defs`, built the same way; `required` as the manifest says. Descriptions are
 * `readable`; any other keyword with a control character anywhere in it (a default, an enum, a format, a
 * pattern; numbers have none) is left out (the service still applies and checks it), so that no altered
 * value is offered to be sent.
 */
export function inputSchemaOfParams (params: Record<string, ManifestParam>, types: Record<string, ManifestType>): Tool['inputSchema'] {
  const defs: Record<string, object> = Object.create(null)
  const typeOf = (type: string): Record<string, unknown> => {
    // verifyManifest has checked that any other name is a type of the manifest.
    if (JSON_SCHEMA_TYPES.has(type)) return { type }
    // Any JSON value: a schema without a type.
    if (type === ANY_TYPE) return {}
    if (!(type in defs)) {
      // Taken before it is built, so a type that refers to itself finds its own entry.
      defs[type] = {}
      defs[type] = schemaOf(types[type])
    }
    return { $ref: `#/$defs/${type}` }
  }
  const schemaOf = (field: ManifestField): Record<string, unknown> => {
    const schema = typeOf(field.type)
    if (field.description !== undefined) schema.description = readable(field.description)
    for (const { key } of KEYWORDS) {
      if (field[key] !== undefined && !hidesControls(field[key])) schema[key] = field[key]
    }
    if (field.items !== undefined) schema.items = schemaOf(field.items)
    if (field.properties !== undefined) Object.assign(schema, objectOf(field.properties))
    return schema
  }
  const objectOf = (fields: Record<string, ManifestProperty>): { properties: Record<string, object>, required?: string[] } => {
    const properties: Record<string, object> = Object.create(null)
    const required: string[] = []
    for (const [name, field] of Object.entries(fields)) {
      properties[name] = schemaOf(field)
      if (field.required) required.push(name)
    }
    return required.length > 0 ? { properties, required } : { properties }
  }
  const inputSchema: Tool['inputSchema'] = { type: 'object', ...objectOf(params) as { properties: Properties, required?: string[] } }
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs
  return inputSchema
}

interface Nested {
  properties?: Record<string, Nested>
  items?: Nested
}

/**
 * The names in an input schema built above that have control characters: its params and their nested
 * properties, and the fields of the types under `$defs` (whose own names the manifest's pattern already
 * restricts), however deep, each named by its path (`param "user.email"`).
 */
function controlledNames (inputSchema: Tool['inputSchema']): string[] {
  const found: string[] = []
  const walk = (schema: Nested, path: string[], what: (path: string) => string): void => {
    for (const [name, nested] of Object.entries(schema.properties ?? {})) {
      if (name.search(CONTROLS) !== -1) found.push(what([...path, name].join('.')))
      walk(nested, [...path, name], what)
    }
    if (schema.items !== undefined) walk(schema.items, [...path, '[]'], what)
  }
  walk(inputSchema as Nested, [], (path) => `param "${path}"`)
  for (const [type, definition] of Object.entries(inputSchema.$defs ?? {}) as Array<[string, Nested]>) {
    walk(definition, [], (path) => `field "${path}" of type ${type}`)
  }
  return found
}

/** Whether a JSON value has, in any string or key of it, a control character that `readable` would take out. */
function hidesControls (value: unknown): boolean {
  if (typeof value === 'string') return value.search(HIDDEN) !== -1
  if (Array.isArray(value)) return value.some(hidesControls)
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, item]) => hidesControls(key) || hidesControls(item))
}
