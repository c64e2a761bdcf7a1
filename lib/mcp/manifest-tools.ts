import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Manifest, ManifestParam, ManifestType } from '../manifest/types.js'
import { annotationsOf, toolNames } from './tools.js'

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'])

/**
 * A tool per command of a manifest fetched from any service, with input schemas built from the manifest's
 * param types; `problems` lists the tool names clients would refuse and the clashes.
 */
export function manifestTools (manifest: Manifest): { tools: Tool[], byTool: Map<string, string>, problems: string[] } {
  const { byTool, invalid, clashes } = toolNames(Object.keys(manifest.commands))
  const tools: Tool[] = []
  for (const [name, command] of byTool) {
    const { description, params = {}, hints } = manifest.commands[command]
    const tool: Tool = { name, description, inputSchema: inputSchemaOfParams(params, manifest.types) }
    const annotations = annotationsOf(hints)
    if (annotations !== undefined) tool.annotations = annotations
    tools.push(tool)
  }
  return { tools, byTool, problems: [...invalid, ...clashes] }
}

/**
 * The JSON Schema of a command's params from its manifest entry: each param's type (a registered type as a
 * `$ref` to its definition under `$defs`), description and default; `required` as the manifest says.
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
    if (param.default !== undefined) property.default = param.default
    properties[name] = property
    if (param.required) required.push(name)
  }
  const inputSchema: Tool['inputSchema'] = { type: 'object', properties }
  if (required.length > 0) inputSchema.required = required
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs
  return inputSchema
}

function described (schema: Record<string, unknown>, description: string | undefined): Record<string, unknown> {
  if (description !== undefined) schema.description = description
  return schema
}
