import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { importOptional } from '../util/optional.js'

/** The optional peer dependency that serves MCP. */
export const MCP_SDK = '@modelcontextprotocol/sdk'

/** What the tool server needs of the SDK, whatever the transport. */
export interface McpSdk {
  Server: typeof Server
  ListToolsRequestSchema: typeof ListToolsRequestSchema
  CallToolRequestSchema: typeof CallToolRequestSchema
  /**
   * One for every server made with this SDK: a server makes its own Ajv instance otherwise, which costs
   * about half a millisecond, and the plugin makes a server per request.
   */
  jsonSchemaValidator: jsonSchemaValidator
}

export interface McpHttpSdk extends McpSdk {
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport
}

export interface McpStdioSdk extends McpSdk {
  StdioServerTransport: typeof StdioServerTransport
}

/** The SDK with its Streamable HTTP transport, for the plugin's `mcp` option. */
export async function loadHttpSdk (): Promise<McpHttpSdk> {
  const [server, types, validation, transport] = await importOptional(MCP_SDK, 'The option "mcp"', () => Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')
  ]))
  return { ...sdkOf(server, types, validation), WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport }
}

/** The SDK with its stdio transport, for `svc-manifest mcp`. */
export async function loadStdioSdk (): Promise<McpStdioSdk> {
  const [server, types, validation, transport] = await importOptional(MCP_SDK, 'The mcp command', () => Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
    import('@modelcontextprotocol/sdk/server/stdio.js')
  ]))
  return { ...sdkOf(server, types, validation), StdioServerTransport: transport.StdioServerTransport }
}

function sdkOf (
  server: { Server: typeof Server },
  types: typeof import('@modelcontextprotocol/sdk/types.js'),
  validation: typeof import('@modelcontextprotocol/sdk/validation/ajv')
): McpSdk {
  return {
    Server: server.Server,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    CallToolRequestSchema: types.CallToolRequestSchema,
    jsonSchemaValidator: new validation.AjvJsonSchemaValidator()
  }
}
