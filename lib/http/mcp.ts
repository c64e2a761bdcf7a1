import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, RouteShorthandOptions } from 'fastify'
import { FST_SVC_NOT_READY } from '../errors.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { catalogTools, type Tools } from '../mcp/catalog-tools.js'
import { loadHttpSdk, type McpHttpSdk } from '../mcp/sdk.js'
import { createToolServer, toolResultOf, type ToolServerInfo } from '../mcp/tools.js'
import type { McpHttpHandler, Server } from '@modelcontextprotocol/server'
import { DEFAULT_MAX_STEPS } from '../options.js'
import type { Dispatcher } from './dispatch.js'
import type { EndpointContext } from './endpoint.js'

export interface McpConfig {
  name: string
  version: string
  description: string
  about?: string
  mcp: false | { path: string }
  /** Its `maxSteps` is also the most messages of one JSON-RPC batch (the default when invoke is off). */
  invoke: false | { maxSteps: number }
  routeLog: Pick<RouteShorthandOptions, 'logLevel' | 'logSerializers'>
}

/** Headers of the connection, not of the request: the handler has no use for them. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length'])
/** JSON-RPC's "parse error", and the code the SDK's transport uses for its other refusals. */
const PARSE_ERROR = -32700
/** JSON-RPC's "invalid request". */
const INVALID_REQUEST = -32600
const SERVER_ERROR = -32000

/**
 * The MCP endpoint (`{path}`, Streamable HTTP) on the SDK's v2 HTTP handler: the 2026-07-28 revision, and
 * the 2025 revisions its clients still negotiate (2025-11-25, 2025-06-18) served statelessly from the
 * same server factory. Every command is a tool, each call dispatched exactly like execute, with the MCP
 * request's own headers. Stateless: each request gets a fresh server from the factory that lives as long
 * as the request, so nothing is kept between requests, and a tool call can only ever carry the headers of
 * the request it came in.
 */
export class McpEndpoint {
  private tools: Tools | undefined
  private readonly handler: McpHttpHandler
  /** The Fastify request of each web request handed to the SDK, for the server factory. */
  private readonly requests = new WeakMap<Request, FastifyRequest>()

  private constructor (
    private readonly sdk: McpHttpSdk,
    private readonly info: ToolServerInfo,
    private readonly dispatcher: Dispatcher,
    private readonly maxBatch: number
  ) {
    // A tool call has one result and nothing to send before it: answered as JSON, with Fastify's hooks.
    this.handler = sdk.createMcpHandler((context) => this.serverFor(context.requestInfo as Request))
  }

  /**
   * Loads the SDK (an optional peer) and adds the routes and their link, when `mcp` is on; the tools are
   * made once the catalog is built.
   */
  static async register (fastify: FastifyInstance, config: McpConfig, { dispatcher, origins, links, onCatalog }: EndpointContext): Promise<void> {
    if (config.mcp === false) return
    const sdk = await loadHttpSdk()
    const instructions = config.about === undefined ? config.description : `${config.description}\n\n${config.about}`
    const maxBatch = config.invoke === false ? DEFAULT_MAX_STEPS : config.invoke.maxSteps
    const endpoint = new McpEndpoint(sdk, { name: config.name, version: config.version, instructions }, dispatcher, maxBatch)
    const { path } = config.mcp
    const options = { ...config.routeLog, onRequest: origins.onRequest, errorHandler: jsonRpcErrorHandler, schema: { hide: true } as FastifySchema }
    fastify.post(path, options, (request, reply) => endpoint.handle(request, reply))
    fastify.route({ method: ['GET', 'DELETE'], url: path, ...options, handler: methodNotAllowed })
    links.add(path, LINK_RELATIONS.mcp)
    fastify.addHook('preClose', async function closeSvcMcp () { await endpoint.handler.close() })
    // The tools, or a coded error that rejects `ready()`.
    onCatalog((catalog, resolve) => { endpoint.tools = catalogTools(catalog, resolve) })
  }

  private serverFor (webRequest: Request): Server {
    const { tools, byTool } = this.tools as Tools
    const request = this.requests.get(webRequest) as FastifyRequest
    return createToolServer(this.sdk, this.info, tools, byTool, async (command, args) => {
      return toolResultOf(await this.dispatcher.dispatch(request, command, args))
    })
  }

  private async handle (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (this.tools === undefined) throw new FST_SVC_NOT_READY('the MCP tools exist once ready() has succeeded, and it failed: its error says why.')
    // One request never costs more inner calls than one pipeline may make.
    if (Array.isArray(request.body) && request.body.length > this.maxBatch) {
      return await reply.code(400).send(jsonRpcError(INVALID_REQUEST, `A JSON-RPC batch may hold at most ${this.maxBatch} messages; this one holds ${request.body.length}.`))
    }
    const webRequest = transportRequest(request, reply)
    this.requests.set(webRequest, request)
    const response = await this.handler.fetch(webRequest, { parsedBody: request.body })
    reply.code(response.status)
    for (const [name, value] of response.headers) reply.header(name, value)
    return await reply.send(await response.text())
  }
}

/**
 * What the handler reads of the request: its headers (the protocol's own among them: `Mcp-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`), and a signal that ends the exchange when the client goes away. Its URL goes
 * unused; the body is handed over parsed.
 */
function transportRequest (request: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers.set(name, value)
  }
  const aborted = new AbortController()
  // The response's close: sent, or the connection gone (the request's own close comes once its body is read).
  reply.raw.once('close', () => aborted.abort())
  return new Request('http://localhost/mcp', { method: 'POST', headers, signal: aborted.signal })
}

/**
 * Streamable HTTP opens a stream for server-initiated messages with GET, and ends a session with DELETE.
 * A stateless server has neither, and the transport says so with 405, which clients expect.
 */
async function methodNotAllowed (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return await reply.code(405).header('allow', 'POST').send(jsonRpcError(SERVER_ERROR, `Method not allowed: this MCP endpoint is stateless and takes POST only, not ${request.method}.`))
}

/** What Fastify refuses before the transport sees it (a body that is not JSON, too large, …), as a JSON-RPC error. */
function jsonRpcErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 500
  const message = status >= 500 ? 'Internal server error' : error.message
  if (status >= 500) request.log.error({ err: error }, 'MCP request failed')
  reply.code(status).send(jsonRpcError(status === 400 ? PARSE_ERROR : SERVER_ERROR, message))
}

function jsonRpcError (code: number, message: string): { jsonrpc: '2.0', error: { code: number, message: string }, id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null }
}
