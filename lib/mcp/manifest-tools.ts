import type { Tool } from '@modelcontextprotocol/server'
import type { Manifest, ManifestParam, ManifestType } from '../manifest/types.js'
import { controlCharacters } from '../util/control-characters.js'
import type { Properties } from './catalog-tools.js'
import { annotationsOf, toolNames, toolTitleOf, type ToolServerInfo } from './tools.js'

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'])

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
export function manifestTools (manifest: Manifest): { tools: Tool[], byTool: Map<string, string>, problems: string[] } {
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

/** The server's name, version and instructions (the manifest's description, then its `about`), readable. */
export function manifestServerInfo (manifest: Manifest): ToolServerInfo {
  const instructions = manifest.about === undefined ? manifest.description : `${manifest.description}\n\n${manifest.about}`
  return { name: readable(manifest.name), version: readable(manifest.version), instructions: readable(instructions) }
}

/** A text of the manifest without the control characters MCP clients would show raw or act on; tab and line feed kept. */
function readable (text: string): string {
  return text.replace(HIDDEN, '')
}

/**
 * The JSON Schema of a command's params from its manifest entry: each param's type (a registered type as a
 * `$ref` to its definition under `$defs`), description and default; `required` as the manifest says.
 * Descriptions are `readable`; a default with such characters anywhere in it is left out (the service
 * still applies it when the param is left out), so that no altered value is offered to be sent.
 */
export function inputSchemaOfParams (params: Record<string, ManifestParam>, types: Record<string, ManifestType>): Tool['inputSchema'] {
  const defs: Record<string, object> = Object.create(null)
  const schemaOf = (type: string): Record<string, unknown> => {
    // verifyManifest has checked that any other name is a type of the manifest.
    if (PRIMITIVES.has(type)) return { type }
    if (!(type in defs)) {
      // Taken before it is built, so a type that refers to itself finds its own entry.
      defs[type] = {}
      defs[type] = definitionOf(types[type])
    }
    return { $ref: `#/$defs/${type}` }
  }
  const definitionOf = (declared: ManifestType): object => {
    const definition = described(schemaOf(declared.type), declared.description)
    if (declared.properties === undefined) return definition
    const properties: Record<string, object> = Object.create(null)
    for (const [name, field] of Object.entries(declared.properties)) properties[name] = described(schemaOf(field.type), field.description)
    return { ...definition, properties }
  }
  const properties: Record<string, object> = Object.create(null)
  const required: string[] = []
  for (const [name, param] of Object.entries(params)) {
    const property = described(schemaOf(param.type), param.description)
    if (param.default !== undefined && !hidesControls(param.default)) property.default = param.default
    properties[name] = property
    if (param.required) required.push(name)
  }
  const inputSchema: Tool['inputSchema'] = { type: 'object', properties: properties as Properties }
  if (required.length > 0) inputSchema.required = required
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs
  return inputSchema
}

function described (schema: Record<string, unknown>, description: string | undefined): Record<string, unknown> {
  if (description !== undefined) schema.description = readable(description)
  return schema
}

/**
 * The names in an input schema built above that have control characters: its params, and the fields of
 * the types under `$defs` (whose own names the manifest's pattern already restricts).
 */
function controlledNames (inputSchema: Tool['inputSchema']): string[] {
  const names = Object.keys(inputSchema.properties as object).map((name) => ({ name, what: `param "${name}"` }))
  for (const [type, definition] of Object.entries(inputSchema.$defs ?? {}) as Array<[string, { properties?: object }]>) {
    for (const name of Object.keys(definition.properties ?? {})) names.push({ name, what: `field "${name}" of type ${type}` })
  }
  return names.filter(({ name }) => name.search(CONTROLS) !== -1).map(({ what }) => what)
}

/** Whether a JSON value has, in any string or key of it, a control character that `readable` would take out. */
function hidesControls (value: unknown): boolean {
  if (typeof value === 'string') return value.search(HIDDEN) !== -1
  if (Array.isArray(value)) return value.some(hidesControls)
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, item]) => hidesControls(key) || hidesControls(item))
}
