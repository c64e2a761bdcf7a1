import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, RouteShorthandOptions } from 'fastify'
import { FST_SVC_NOT_READY } from '../errors.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { catalogTools, type Tools } from '../mcp/catalog-tools.js'
import {
  addChannelResources, channelAddressOf, channelReadResult, channelTemplates, isRefusal, refusalError, REFUSED, ResourceFollowers,
  type ChannelAddress, type Refusal
} from '../mcp/resources.js'
import { loadHttpSdk, type McpHttpSdk } from '../mcp/sdk.js'
import { createToolServer, toolResultOf, type ToolServerInfo } from '../mcp/tools.js'
import type { McpHttpHandler, McpRequestContext, ReadResourceResult, ResourceTemplateType, Server } from '@modelcontextprotocol/server'
import { DEFAULT_MAX_STEPS } from '../options.js'
import { subjectReader } from '../realtime/addressing.js'
import type { Realtime } from '../realtime/realtime.js'
import type { BearerAuth } from './auth.js'
import { mayWatch, type WatchableChannel } from './channels.js'
import type { Dispatcher } from './dispatch.js'
import type { EndpointContext } from './endpoint.js'
import type { StreamRouteDependencies } from './events.js'

export interface McpConfig {
  name: string
  version: string
  description: string
  about?: string
  mcp: false | { path: string }
  /** With `auth`, reading or subscribing to a channel needs a valid credential, as watching it does. */
  auth?: { subject?: (credential: unknown) => unknown }
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
  /** Channels as resources (layout 0.5.0, with channels declared); made with the tools. */
  private resources: { templates: ResourceTemplateType[], followers: ResourceFollowers } | undefined
  private readonly handler: McpHttpHandler
  /** The Fastify request of each web request handed to the SDK, for the server factory. */
  private readonly requests = new WeakMap<Request, FastifyRequest>()

  private constructor (
    private readonly sdk: McpHttpSdk,
    private readonly info: ToolServerInfo,
    private readonly dispatcher: Dispatcher,
    private readonly maxBatch: number,
    private readonly channels: ChannelAccess
  ) {
    // A tool call has one result and nothing to send before it: answered as JSON, with Fastify's hooks.
    this.handler = sdk.createMcpHandler((context) => this.serverFor(context))
  }

  /**
   * Loads the SDK (an optional peer) and adds the routes and their link, when `mcp` is on; the tools are
   * made once the catalog is built.
   */
  static async register (fastify: FastifyInstance, config: McpConfig, { dispatcher, origins, links, onCatalog, auth, declarations, realtime }: EndpointContext): Promise<void> {
    if (config.mcp === false) return
    const sdk = await loadHttpSdk()
    const instructions = config.about === undefined ? config.description : `${config.description}\n\n${config.about}`
    const maxBatch = config.invoke === false ? DEFAULT_MAX_STEPS : config.invoke.maxSteps
    const channels: ChannelAccess = {
      channels: declarations.channels,
      auth,
      rule: { authenticate: config.auth === undefined ? undefined : auth.onRequest, subjectOf: subjectReader(config.auth?.subject) },
      realtime: () => realtime.current as Realtime
    }
    const endpoint = new McpEndpoint(sdk, { name: config.name, version: config.version, instructions }, dispatcher, maxBatch, channels)
    const { path } = config.mcp
    const options = { ...config.routeLog, onRequest: origins.onRequest, errorHandler: jsonRpcErrorHandler, schema: { hide: true } as FastifySchema }
    fastify.post(path, options, (request, reply) => endpoint.handle(request, reply))
    fastify.route({ method: ['GET', 'DELETE'], url: path, ...options, handler: methodNotAllowed })
    links.add(path, LINK_RELATIONS.mcp)
    fastify.addHook('preClose', async function closeSvcMcp () { await endpoint.handler.close() })
    // The tools, or a coded error that rejects `ready()`; the channels are all declared by then.
    onCatalog((catalog, resolve) => {
      endpoint.tools = catalogTools(catalog, resolve)
      if (declarations.channels.size === 0) return
      const followers = new ResourceFollowers(
        (channel, key, onPublish) => channels.realtime().followChannel(channel, key, onPublish),
        (uri) => endpoint.handler.notify.resourceUpdated(uri)
      )
      endpoint.resources = { templates: channelTemplates(declarations.channels), followers }
    })
  }

  /**
   * The server of one request. Channels are resources on it; subscriptions are offered only on the
   * revision that can deliver their updates (2026-07-28's `subscriptions/listen` streams): the 2025 path
   * is stateless, with no stream to send them on, so there resources are read only.
   */
  private serverFor ({ era, requestInfo }: McpRequestContext): Server {
    const { tools, byTool } = this.tools as Tools
    const request = this.requests.get(requestInfo as Request) as FastifyRequest
    const resources = this.resources
    const capabilities = resources === undefined ? {} : { resources: era === 'modern' ? { subscribe: true } : {} }
    const server = createToolServer(this.sdk, this.info, tools, byTool, async (command, args) => {
      // The web request's signal aborts when the client goes away: the call stops with it.
      return toolResultOf(await this.dispatcher.dispatch(request, command, args, { signal: (requestInfo as Request).signal }))
    }, capabilities)
    if (resources !== undefined) addChannelResources(server, resources.templates, async (uri) => await this.readChannel(request, uri))
    return server
  }

  private async handle (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (this.tools === undefined) throw new FST_SVC_NOT_READY('the MCP tools exist once ready() has succeeded, and it failed: its error says why.')
    // One request never costs more inner calls than one pipeline may make.
    if (Array.isArray(request.body) && request.body.length > this.maxBatch) {
      return await reply.code(400).send(jsonRpcError(INVALID_REQUEST, `A JSON-RPC batch may hold at most ${this.maxBatch} messages; this one holds ${request.body.length}.`))
    }
    const listen = this.resources === undefined ? undefined : listenRequestOf(request.body)
    if (listen !== undefined) {
      const refused = await this.follow(request, reply, listen, (this.resources as { followers: ResourceFollowers }).followers)
      if (refused !== undefined) return await reply.send(refused)
    }
    const webRequest = transportRequest(request, reply)
    this.requests.set(webRequest, request)
    const response = await this.handler.fetch(webRequest, { parsedBody: request.body })
    reply.code(response.status)
    for (const [name, value] of response.headers) reply.header(name, value)
    // A stream is passed on as it comes: a subscriptions/listen stream stays open until either side ends it.
    if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
      return await reply.send(Readable.fromWeb(response.body as NodeReadableStream))
    }
    return await reply.send(await response.text())
  }

  /**
   * A `subscriptions/listen` request is checked before the SDK sees it: every resource it names must be a
   * channel key this request may watch, or the whole request is refused (a JSON-RPC error, as the SDK
   * answers its own refusals of a listen). Then each key is followed, once subscribed, until the response
   * closes, so that its publishes reach the stream.
   */
  private async follow (request: FastifyRequest, reply: FastifyReply, listen: ListenRequest, followers: ResourceFollowers): Promise<object | undefined> {
    const addresses = new Map<string, ChannelAddress>()
    for (const uri of listen.uris) {
      const address = await this.access(request, uri)
      if (isRefusal(address)) return { jsonrpc: '2.0', id: listen.id, error: address }
      addresses.set(uri as string, address)
    }
    const { ready, release } = followers.hold(addresses)
    reply.raw.once('close', release)
    await ready
  }

  private async readChannel (request: FastifyRequest, uri: string): Promise<ReadResourceResult> {
    const address = await this.access(request, uri)
    if (isRefusal(address)) throw refusalError(address)
    return channelReadResult(uri, await this.channels.realtime().readChannel(address.channel, address.key))
  }

  /**
   * The channel key `uri` names, when this request may watch it (DESIGN §9: with `auth`, a valid
   * credential first, as the channel's stream requires; then the watch rule), else why not. Fail closed:
   * anything but a yes is a refusal.
   */
  private async access (request: FastifyRequest, uri: unknown): Promise<ChannelAddress | Refusal> {
    const { channels, auth, rule } = this.channels
    const address = channelAddressOf(uri, channels)
    if (isRefusal(address)) return address
    const { channel, key } = address
    const credential = await auth.credentialOf(request)
    if (rule.authenticate !== undefined && credential === null) {
      return { code: REFUSED, message: `Channel "${channel}" needs a credential: send the Authorization header, as for its stream.` }
    }
    if (credential === false) return { code: REFUSED, message: 'The token was refused.' }
    if (!(await mayWatch(channels.get(channel) as WatchableChannel, credential, key, request, rule))) {
      return { code: REFUSED, message: `Not allowed to watch channel "${channel}" key ${JSON.stringify(key)}.` }
    }
    return address
  }
}

/** What reading and following channels need: the declared channels, the request's credential, the watch rule. */
interface ChannelAccess {
  channels: ReadonlyMap<string, WatchableChannel>
  auth: BearerAuth
  rule: Pick<StreamRouteDependencies, 'authenticate' | 'subjectOf'>
  /** Started by `ready()`, before any request comes. */
  realtime: () => Realtime
}

interface ListenRequest {
  id: unknown
  /** What the request asks to follow: `params.notifications.resourceSubscriptions`. */
  uris: unknown[]
}

/** The body as a `subscriptions/listen` request, when it is one (a batch never is: the SDK serves listens alone). */
function listenRequestOf (body: unknown): ListenRequest | undefined {
  const message = body as { method?: unknown, id?: unknown, params?: { notifications?: { resourceSubscriptions?: unknown } } } | null
  if (message?.method !== 'subscriptions/listen') return undefined
  const uris = message.params?.notifications?.resourceSubscriptions
  return { id: message.id, uris: Array.isArray(uris) ? uris : [] }
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
