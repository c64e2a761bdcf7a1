import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { FST_SVC_MISSING_DEPENDENCY } from '../errors.js'

/** The optional peer dependency that serves MCP. */
export const MCP_SDK = '@modelcontextprotocol/sdk'

/** What the tool server needs of the SDK, whatever the transport. */
export interface McpSdk {
  Server: typeof Server
  ListToolsRequestSchema: typeof ListToolsRequestSchema
  CallToolRequestSchema: typeof CallToolRequestSchema
}

export interface McpHttpSdk extends McpSdk {
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport
}

export interface McpStdioSdk extends McpSdk {
  StdioServerTransport: typeof StdioServerTransport
}

/** The SDK with its Streamable HTTP transport, for the plugin's `mcp` option. */
export async function loadHttpSdk (): Promise<McpHttpSdk> {
  const [server, types, transport] = await fromSdk('The option "mcp"', () => Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')
  ]))
  return { ...sdkOf(server, types), WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport }
}

/** The SDK with its stdio transport, for `svc-manifest mcp`. */
export async function loadStdioSdk (): Promise<McpStdioSdk> {
  const [server, types, transport] = await fromSdk('The mcp command', () => Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js')
  ]))
  return { ...sdkOf(server, types), StdioServerTransport: transport.StdioServerTransport }
}

function sdkOf (server: { Server: typeof Server }, types: typeof import('@modelcontextprotocol/sdk/types.js')): McpSdk {
  return { Server: server.Server, ListToolsRequestSchema: types.ListToolsRequestSchema, CallToolRequestSchema: types.CallToolRequestSchema }
}

/**
 * Loads modules of the SDK on demand, so an app without `mcp` never pays for it. Whatever keeps them from
 * loading (not installed, or an install too broken to load) has the same fix, which the error names.
 */
async function fromSdk<T> (neededBy: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (cause) {
    throw new FST_SVC_MISSING_DEPENDENCY(`${neededBy} needs the package "${MCP_SDK}", which could not be loaded (${(cause as Error).message}). Run: npm install ${MCP_SDK}`, { cause })
  }
}
