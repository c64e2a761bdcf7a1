import type { Server, WebStandardStreamableHTTPServerTransport, createMcpHandler } from '@modelcontextprotocol/server'
import type { DirectCallSdk } from './direct-call.js'
import type { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio'
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv'
import { importOptional } from '../util/optional.js'

/**
 * The optional peer dependency that serves MCP: the SDK's v2 server, which speaks the 2026-07-28 revision
 * and, by the same server factory, the 2025 revisions its clients still negotiate.
 */
export const MCP_SDK = '@modelcontextprotocol/server'

/** What the tool server needs of the SDK, whatever the transport. */
export interface McpSdk {
  Server: typeof Server
  /**
   * One for every server made with this SDK: a server makes its own Ajv instance otherwise, and the plugin
   * makes a server per request.
   */
  jsonSchemaValidator: AjvJsonSchemaValidator
}

export interface McpHttpSdk extends McpSdk, DirectCallSdk {
  /** Every revision the SDK serves, newest first. */
  SUPPORTED_PROTOCOL_VERSIONS: string[]
  createMcpHandler: typeof createMcpHandler
  /** The 2025 revisions' transport, for the sessions that hold subscriptions. */
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport
}

export interface McpStdioSdk extends McpSdk {
  serveStdio: typeof serveStdio
  StdioServerTransport: typeof StdioServerTransport
}

/** The SDK with its web-standard HTTP handler, for the plugin's `mcp` option. */
export async function loadHttpSdk (): Promise<McpHttpSdk> {
  const [server, validation] = await importOptional(MCP_SDK, 'The option "mcp"', () => Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/server/validators/ajv')
  ]))
  return {
    Server: server.Server,
    jsonSchemaValidator: new validation.AjvJsonSchemaValidator(),
    createMcpHandler: server.createMcpHandler,
    WebStandardStreamableHTTPServerTransport: server.WebStandardStreamableHTTPServerTransport,
    classifyInboundRequest: server.classifyInboundRequest,
    isJsonContentType: server.isJsonContentType,
    SUPPORTED_PROTOCOL_VERSIONS: server.SUPPORTED_PROTOCOL_VERSIONS
  }
}

/** The SDK with its stdio entry, for `svc-manifest mcp`. */
export async function loadStdioSdk (): Promise<McpStdioSdk> {
  const [server, validation, stdio] = await importOptional(MCP_SDK, 'The mcp command', () => Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/server/validators/ajv'),
    import('@modelcontextprotocol/server/stdio')
  ]))
  return {
    Server: server.Server,
    jsonSchemaValidator: new validation.AjvJsonSchemaValidator(),
    serveStdio: stdio.serveStdio,
    StdioServerTransport: stdio.StdioServerTransport
  }
}
