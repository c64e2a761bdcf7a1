import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { REFUSALS } from '../lifecycle.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { catalogTools, toolsView, type Tools } from '../mcp/catalog-tools.js'
import { DIRECT_REVISION, directAnswer, directRequestOf, legacyAnswer, legacyCallOf, listAnswer, type DirectCall } from '../mcp/direct-call.js'
import { ListenSlots, type LimitRefusal } from '../mcp/limits.js'
import {
  addChannelResources, channelAddressOf, channelReadResult, channelTemplates, distinctKeys, isRefusal, refusalError, REFUSED, ResourceFollowers,
  tooManyKeys, type ChannelAddress, type Refusal
} from '../mcp/resources.js'
import { loadHttpSdk, type McpHttpSdk } from '../mcp/sdk.js'
import { LegacySessions, type LegacySession } from '../mcp/sessions.js'
import { McpStreams } from '../mcp/streams.js'
import { ProgressNotifier } from '../mcp/progress.js'
import { createToolServer, toolResultOf, type ToolCall, type ToolServerInfo } from '../mcp/tools.js'
import type { CallToolResult, McpHttpHandler, McpRequestContext, ReadResourceResult, ResourceTemplateType, Server, ServerCapabilities } from '@modelcontextprotocol/server'
import { DEFAULT_MAX_STEPS, type McpLimits } from '../options.js'
import type { Realtime } from '../realtime/realtime.js'
import type { BearerAuth } from './auth.js'
import { mayWatch, type WatchableChannel } from './channels.js'
import type { CallControl } from '../util/call-control.js'
import type { Dispatcher } from './dispatch.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'
import { webHeaders } from './headers.js'
import type { ResponseTap } from './inner.js'
import { PieceReader } from './pieces.js'
import { EVENT_STREAM_HEAD } from '../util/event-stream.js'
import { Lru } from '../util/lru.js'
import { audienceKey, audienceOf, MAX_VIEWS } from './audiences.js'

export interface McpConfig extends RouteLogConfig {
  name: string
  version: string
  description: string
  about?: string
  /** Its `maxBufferBytes` bounds every SSE stream of the endpoint; its `heartbeat`, their comments. */
  realtime: { maxBufferBytes: number, heartbeat: number }
  /** With `auth`, reading or subscribing to a channel needs a valid credential, as watching it does. */
  auth?: { subject?: (credential: unknown) => unknown }
  /** Its `maxSteps` is also the most messages of one JSON-RPC batch (the default when invoke is off). */
  invoke: false | { maxSteps: number }
}

/** The media type of a JSON answer, as Fastify sends the SDK's. */
const JSON_TYPE = 'application/json; charset=utf-8'
/** JSON-RPC's "parse error", and the code the SDK's transport uses for its other refusals. */
const PARSE_ERROR = -32700
/** JSON-RPC's "invalid request". */
const INVALID_REQUEST = -32600
const SERVER_ERROR = -32000
/** Streamable HTTP's "session not found" (with 404): the client initializes again. */
const SESSION_NOT_FOUND = -32001

/**
 * The MCP endpoint (`{path}`, Streamable HTTP) on the SDK's v2 HTTP handler: the 2026-07-28 revision, and
 * the 2025 revisions its clients still negotiate (2025-11-25, 2025-06-18) from the same tools. Every command
 * is a tool, each call dispatched exactly like execute, with the MCP request's own headers. Stateless: each
 * request gets a fresh server from the factory that lives as long as the request, and a tool call can only
 * ever carry the headers of the request it came in. The plainest `tools/call` (every revision) and
 * `tools/list` (2026-07-28) are answered without that server, as the SDK answers them (mcp/direct-call.ts):
 * nothing is shared between requests but the tools, made at `ready()`. With channels, a 2025 client that initializes gets a
 * session (a server kept between its requests, each tool call and read still with its own request's
 * headers), where `resources/subscribe` sends its updates; 2026-07-28 has `subscriptions/listen` instead.
 * Listens and sessions are held to the bounds docs/mcp.md lists: slots per subject and in all, keys per
 * listen, `maxBufferBytes` per stream, all ended by `app.close()`.
 */
export class McpEndpoint {
  /** The public view's tools (every tool when no command is hidden), and its `tools/list` answer. */
  private tools: ToolView | undefined
  /** Every tool, the hidden ones included: what each credential's view is cut from. */
  private allTools: Tools | undefined
  /** The hidden commands (`catalog.hidden`): with none, every request sees `tools`. */
  private hidden: ReadonlyMap<string, readonly string[]> = new Map()
  /** The tools of each visible set of hidden commands, made on first use. */
  private readonly views = new Lru<ToolView>(MAX_VIEWS)
  /** The view of a request whose credential sees hidden commands; any other request sees `tools`. */
  private readonly viewOfRequest = new WeakMap<FastifyRequest, ToolView>()
  /** The server's name and version as JSON text, as every 2026-07-28 answer names them. */
  private readonly serverJson: string
  /** Whether a header names a 2025 revision (or older) that the SDK's transport serves. */
  private readonly legacyRevision: (revision: unknown) => boolean
  /** Channels as resources (layout 0.5.0, with channels declared); made with the tools. */
  private resources: { templates: ResourceTemplateType[], followers: ResourceFollowers } | undefined
  private readonly handler: McpHttpHandler
  /** The Fastify request of each web request handed to the SDK, for the server factory. */
  private readonly requests = new WeakMap<Request, FastifyRequest>()
  /** With channels: the 2025 clients' sessions. */
  private sessions: LegacySessions | undefined
  private readonly slots: ListenSlots

  private constructor (
    private readonly sdk: McpHttpSdk,
    private readonly info: ToolServerInfo,
    private readonly dispatcher: Dispatcher,
    private readonly maxBatch: number,
    private readonly channels: ChannelAccess,
    private readonly limits: McpLimits,
    private readonly streams: McpStreams,
    private readonly keepAliveMs: number
  ) {
    // The SDK's own cap on listens is ours in all; ours refuses first, naming the option.
    this.handler = sdk.createMcpHandler((context) => this.serverFor(context), { maxSubscriptions: limits.maxListens, keepAliveMs })
    this.slots = new ListenSlots(limits)
    this.serverJson = JSON.stringify({ name: info.name, version: info.version })
    const legacy = sdk.SUPPORTED_PROTOCOL_VERSIONS.filter((revision) => revision !== DIRECT_REVISION)
    this.legacyRevision = (revision) => legacy.includes(revision as string)
  }

  /**
   * Loads the SDK (an optional peer) and adds the routes and their link: the plugin calls it when `mcp`
   * is on, with its settings. The tools are made once the catalog is built.
   */
  static async register (fastify: FastifyInstance, config: McpConfig, mcp: McpLimits & { path: string }, context: EndpointContext): Promise<void> {
    const { onCatalog, auth, declarations, realtime } = context
    const [sdk, dispatcher] = await Promise.all([loadHttpSdk(), context.dispatcher()])
    const instructions = config.about === undefined ? config.description : `${config.description}\n\n${config.about}`
    const maxBatch = config.invoke === false ? DEFAULT_MAX_STEPS : config.invoke.maxSteps
    const channels: ChannelAccess = {
      channels: declarations.channels,
      auth,
      realtime: () => realtime.current as Realtime
    }
    const { path, ...limits } = mcp
    const streams = new McpStreams(config.realtime, fastify.log)
    streams.watch(fastify.server)
    const keepAliveMs = config.realtime.heartbeat * 1000
    const endpoint = new McpEndpoint(sdk, { name: config.name, version: config.version, instructions }, dispatcher, maxBatch, channels, limits, streams, keepAliveMs)
    const route = pluginRoutes(fastify, config, context)
    route({ method: 'POST', url: path, acts: true, rel: LINK_RELATIONS.mcp, errorHandler: jsonRpcErrorHandler, handler: (request, reply) => endpoint.handle(request, reply) })
    route({ method: ['GET', 'DELETE'], url: path, acts: true, errorHandler: jsonRpcErrorHandler, handler: (request, reply) => endpoint.handleSession(request, reply) })
    // The SDK's exchanges and the sessions close, and every stream ends, unsent data or not: once the server
    // has stopped taking connections (right after preClose), so that a client that reconnects at once finds
    // it closed instead of holding app.close() open on a fresh connection.
    let closing: Promise<void> | undefined
    fastify.addHook('preClose', function closeSvcMcp (done) {
      closing = nextTurn().then(async () => {
        // The SDK ends its streams with their last frames; what is still open after that (a reader that
        // does not read) is ended at once.
        await endpoint.handler.close()
        await endpoint.sessions?.closeAll()
        await nextTurn()
        streams.endAll()
      })
      done()
    })
    fastify.addHook('onClose', async function closedSvcMcp () { await closing })
    // The tools, or a coded error that rejects `ready()`; the channels are all declared by then.
    onCatalog((catalog, resolve) => {
      const all = catalogTools(catalog, resolve)
      endpoint.allTools = all
      endpoint.hidden = catalog.hidden
      endpoint.tools = endpoint.toolView(catalog.hidden.size === 0 ? all : toolsView(all, (command) => !catalog.hidden.has(command)))
      if (declarations.channels.size === 0) return
      const followers = new ResourceFollowers((channel, key, onPublish) => channels.realtime().followChannel(channel, key, onPublish))
      endpoint.resources = { templates: channelTemplates(declarations.channels), followers }
      endpoint.sessions = new LegacySessions({ Transport: sdk.WebStandardStreamableHTTPServerTransport, followers, maxSubscriptions: limits.maxSubscriptions, keepAliveMs })
    })
  }

  /**
   * The server of one request. Channels are resources on it; on 2026-07-28 they are followed with
   * `subscriptions/listen`. A 2025 request served here has no session (a client that did not initialize,
   * or one past its slots): no stream to send updates on, so there resources are read only.
   */
  private serverFor ({ era, requestInfo }: McpRequestContext): Server {
    const request = this.requests.get(requestInfo as Request) as FastifyRequest
    return this.server(() => request, era === 'modern' ? { subscribe: true } : {})
  }

  /** A server with the tools and, with channels, their resources; `requestOf` gives the request a call came in. */
  private server (requestOf: (request?: Request) => FastifyRequest, resourcesCapability: ServerCapabilities['resources']): Server {
    const resources = this.resources
    const capabilities = resources === undefined ? {} : { resources: resourcesCapability }
    const server = createToolServer(this.sdk, this.info, (request) => this.viewOf(requestOf(request)), async (command, args, request, call) => {
      // The web request's signal aborts when the client goes away, the SDK's when it cancels the call
      // (notifications/cancelled in a session): the call stops with either.
      const signal = AbortSignal.any([(request as Request).signal, call.signal])
      return await this.callWithProgress(requestOf(request), command, args, signal, call.progress)
    }, capabilities)
    if (resources !== undefined) addChannelResources(server, resources.templates, async (uri, request) => await this.readChannel(requestOf(request), uri))
    return server
  }

  /**
   * A tool call through the SDK: dispatched like execute, and, when the client asked for progress, the
   * route's `request.svc.progress()` reports and the pieces of a `stream: true` command's stream sent as
   * `notifications/progress` (mcp/progress.ts) while the body is still held for the tool result.
   */
  private async callWithProgress (request: FastifyRequest, command: string, args: Record<string, unknown>, signal: AbortSignal, progress: ToolCall['progress']): Promise<CallToolResult> {
    if (progress === undefined) return toolResultOf(await this.dispatcher.dispatch(request, command, args, { signal }))
    const notifier = new ProgressNotifier(progress)
    const pieces = new PieceReader(this.dispatcher.streams(command), ({ text, json }) => { notifier.piece(json ? text.trim() : JSON.stringify(text)) })
    // The pieces are read as the route writes them, and left to the response: the result is the buffered one.
    const tap: ResponseTap = { write: (response, chunk) => { pieces.write(response, chunk); return false } }
    const outcome = await this.dispatcher.dispatch(request, command, args, { signal, progress: notifier.report, tap })
    if (outcome.ok) pieces.end()
    // A report held back is sent before the result, failure or not; a cancelled call sends nothing more.
    notifier.end(!signal.aborted)
    return toolResultOf(outcome)
  }

  /**
   * The server of a 2025 session: kept between its requests, so each call reads the request it came in;
   * `resources/subscribe` follows a key the request may watch (the watch rule at the time of the subscribe,
   * as for a stream), its updates sent on the session's stream.
   */
  private sessionServer (session: LegacySession): Server {
    const requestOf = (request?: Request): FastifyRequest => this.requests.get(request as Request) as FastifyRequest
    const server = this.server(requestOf, { subscribe: true })
    server.setRequestHandler('resources/subscribe', async ({ params: { uri } }, context) => {
      const address = await this.access(requestOf(context.http?.req), uri)
      if (isRefusal(address)) throw refusalError(address)
      await session.subscribe(uri, address)
      return {}
    })
    server.setRequestHandler('resources/unsubscribe', ({ params: { uri } }) => {
      const address = channelAddressOf(uri, this.channels.channels)
      if (!isRefusal(address)) session.unsubscribe(address)
      return {}
    })
    return server
  }

  /** The tools a request sees: its credential's view, once `audience` has found it. */
  private viewOf (request: FastifyRequest): ToolView {
    return this.viewOfRequest.get(request) ?? this.tools as ToolView
  }

  /** A view's tools with its `tools/list` answer. */
  private toolView (tools: Tools): ToolView {
    return { ...tools, list: listAnswer(JSON.stringify({ tools: tools.tools }), this.serverJson) }
  }

  /**
   * Finds the view of the request's credential (DESIGN §15): a hidden command is listed, and callable as a
   * tool, only for a credential that may see it; to anyone else it is an unknown tool. A refused credential
   * sees the public view (a tool call that needs one still gets the route's 401).
   */
  private async audience (request: FastifyRequest): Promise<void> {
    const audience = await audienceOf(this.channels.auth, request, this.hidden)
    if (audience === false || audience.length === 0) return
    const visible = new Set(audience)
    const view = this.views.get(audienceKey(audience), () => this.toolView(toolsView(this.allTools as Tools, (command) => !this.hidden.has(command) || visible.has(command))))
    this.viewOfRequest.set(request, view)
  }

  private async handle (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (this.tools === undefined) throw REFUSALS.startFailed('the MCP endpoint')
    if (this.hidden.size > 0) await this.audience(request)
    // One request never costs more inner calls than one pipeline may make.
    if (Array.isArray(request.body) && request.body.length > this.maxBatch) {
      return await reply.code(400).send(jsonRpcError(INVALID_REQUEST, `A JSON-RPC batch may hold at most ${this.maxBatch} messages; this one holds ${request.body.length}.`))
    }
    const sessions = this.sessions
    if (sessions !== undefined && typeof request.headers['mcp-session-id'] === 'string') return await this.inSession(request, reply, sessions)
    if (sessions !== undefined && isInitialize(request.body)) return await this.openSession(request, reply, sessions)
    return await this.stateless(request, reply)
  }

  /**
   * A request served without a session: a fresh server for it alone. A listen is checked first; a plain
   * 2026-07-28 `tools/call` is answered directly.
   */
  private async stateless (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const view = this.viewOf(request)
    const direct = directRequestOf(this.sdk, request.body, request.headers, view.byTool)
    if (direct?.method === 'tools/call') return await this.callDirect(request, reply, direct)
    if (direct !== undefined) return await reply.type(JSON_TYPE).send(view.list(direct.id))
    // A 2025 call without a session: the SDK would serve it with a server and a transport made for it alone.
    const legacy = request.headers['mcp-session-id'] === undefined ? legacyCallOf(this.sdk, request.body, request.headers, view.byTool, this.legacyRevision) : undefined
    if (legacy !== undefined) return await this.callLegacy(request, reply, legacy)
    const listen = listenRequestOf(request.body)
    if (listen !== undefined) {
      const refused = await this.follow(request, reply, listen)
      if (refused !== undefined) return await reply.send({ jsonrpc: '2.0', id: listen.id, error: refused })
    }
    const webRequest = this.transportRequest(request, reply)
    return await this.answer(request, reply, await this.handler.fetch(webRequest, { parsedBody: request.body }), undefined, listen === undefined)
  }

  /**
   * A 2026-07-28 `tools/call` the SDK would serve as it is (mcp/direct-call.ts), answered as it answers it,
   * without a server made for the request: the command dispatched exactly like execute, with this request's
   * headers and a signal that aborts when its client goes away, and the result framed as JSON-RPC. What the
   * SDK would do per call beyond that (classify, build a server, validate with zod) is the cost of the
   * framing only; measured: 0.22 of execute's rate through the SDK, see docs/benchmarks.md.
   */
  private async callDirect (request: FastifyRequest, reply: FastifyReply, { id, command, args }: DirectCall): Promise<FastifyReply> {
    const result = await this.callTool(request, reply, command, args)
    return await reply.type(JSON_TYPE).send(directAnswer(id, JSON.stringify(result), this.serverJson))
  }

  /**
   * A 2025 call answered as the SDK's transport answers it: one SSE event, on a connection kept open. In a
   * session, the session's `notifications/cancelled` naming its id cancels it too, and then, as the SDK
   * does for a request its client cancelled, the call is not answered: its stream ends without an event.
   */
  private async callLegacy (request: FastifyRequest, reply: FastifyReply, { id, command, args }: DirectCall, session?: LegacySession): Promise<FastifyReply> {
    let answer: string
    if (session === undefined) {
      answer = legacyAnswer(id, await this.callTool(request, reply, command, args))
    } else {
      const call = session.callStarted(id)
      try {
        const result = await this.callTool(request, reply, command, args, call.control)
        answer = call.control.aborted ? '' : legacyAnswer(id, result)
      } finally {
        call.end()
      }
    }
    return await reply.headers(EVENT_STREAM_HEAD).send(answer)
  }

  /**
   * A command called as a tool, exactly like execute: this request's headers, stopped when its client goes
   * away (or when `cancelled` aborts).
   */
  private async callTool (request: FastifyRequest, reply: FastifyReply, command: string, args: Record<string, unknown>, cancelled?: CallControl): Promise<CallToolResult> {
    return toolResultOf(await this.dispatcher.dispatch(request, command, args, { caller: reply, signal: cancelled }))
  }

  /** GET (a session's stream) and DELETE (its end) reach a session; without one, the endpoint is stateless. */
  private async handleSession (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const sessions = this.sessions
    if (sessions === undefined || typeof request.headers['mcp-session-id'] !== 'string') return await methodNotAllowed(request, reply)
    return await this.inSession(request, reply, sessions)
  }

  /** A request of a session: served by it when it exists here and is the caller's own, else 404. */
  private async inSession (request: FastifyRequest, reply: FastifyReply, sessions: LegacySessions): Promise<FastifyReply> {
    const session = sessions.get(request.headers['mcp-session-id'] as string)
    if (session === undefined || session.owner !== await this.ownerOf(request)) {
      return await reply.code(404).send(jsonRpcError(SESSION_NOT_FOUND, 'Session not found: it ended, expired, belongs to another caller, or lives on another instance. Initialize again.'))
    }
    // A plain tools/call is answered as the session's transport answers it, one SSE event, without it.
    const call = request.method === 'POST' ? legacyCallOf(this.sdk, request.body, request.headers, this.viewOf(request).byTool, (revision) => revision === session.revision) : undefined
    if (call !== undefined) {
      session.active()
      return await this.callLegacy(request, reply.header('mcp-session-id', session.id), call, session)
    }
    // A call answered above is the session's to cancel; one its transport serves, the SDK's (it is handed on too).
    const cancelled = cancelledRequestOf(request.body)
    if (cancelled !== undefined) session.cancel(cancelled)
    const response = await session.handle(this.transportRequest(request, reply), request.body)
    return await this.answer(request, reply, response, () => session.streamOpened(), request.method === 'POST')
  }

  /**
   * A 2025 `initialize`, answered in a new session that holds a slot. Past the caller's slots (or all of
   * them), it is served without a session, as before sessions existed: its tools and reads unaffected, its
   * capabilities without `subscribe`.
   */
  private async openSession (request: FastifyRequest, reply: FastifyReply, sessions: LegacySessions): Promise<FastifyReply> {
    const owner = await this.ownerOf(request)
    const slot = this.slots.take(owner)
    if (typeof slot !== 'function') {
      request.log.info({ limit: slot.data.limit }, 'fastify-svc-manifest: an MCP initialize past its listen slots is served without a session')
      return await this.stateless(request, reply)
    }
    const response = await sessions.open((session) => this.sessionServer(session), owner, slot, this.transportRequest(request, reply), request.body)
    return await this.answer(request, reply, response, undefined, true)
  }

  /**
   * The SDK's response as the reply: a stream through the bounded writer, anything else as it is.
   * `answersPost`: a stream is the answer to this POST and ends with it (not a listen, not a session's GET).
   */
  private async answer (request: FastifyRequest, reply: FastifyReply, response: Response, opened?: () => () => void, answersPost = false): Promise<FastifyReply> {
    if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
      this.streams.send(request, reply, response, opened?.(), answersPost)
      return reply
    }
    reply.code(response.status)
    for (const [name, value] of response.headers) reply.header(name, value)
    return await reply.send(await response.text())
  }

  /** Whose listens and sessions: the credential's subject, else the remote address. */
  private async ownerOf (request: FastifyRequest): Promise<string> {
    const credential = await this.channels.auth.credentialOf(request)
    const subject = typeof credential === 'object' && credential !== null ? this.channels.auth.watchRule.subjectOf(credential) : undefined
    return subject === undefined ? `address ${request.ip}` : `subject ${subject}`
  }

  private transportRequest (request: FastifyRequest, reply: FastifyReply): Request {
    const webRequest = transportRequest(request, reply)
    this.requests.set(webRequest, request)
    return webRequest
  }

  /**
   * A `subscriptions/listen` request is checked before the SDK sees it, and refused whole (a JSON-RPC error,
   * as the SDK answers its own refusals of a listen) unless every resource it names is a channel key, at
   * most `maxSubscriptions` distinct keys however spelled, each one this request may watch, and the caller
   * has a listen slot left. The SDK is then handed each key once, under the URI that first named it, so one
   * publish is one notification on the stream; each key is followed, once subscribed, until it closes.
   */
  private async follow (request: FastifyRequest, reply: FastifyReply, listen: ListenRequest): Promise<Refusal | LimitRefusal | undefined> {
    // Without channels, the SDK honors a listen for resources with nothing.
    const uris = this.resources === undefined ? [] : listen.uris
    const addresses: ChannelAddress[] = []
    for (const uri of uris) {
      const address = channelAddressOf(uri, this.channels.channels)
      if (isRefusal(address)) return address
      addresses.push(address)
    }
    const keys = distinctKeys(uris as string[], addresses)
    const { maxSubscriptions } = this.limits
    if (keys.size > maxSubscriptions) return tooManyKeys(maxSubscriptions, keys.size)
    for (const { uri } of keys.values()) {
      const allowed = await this.access(request, uri)
      if (isRefusal(allowed)) return allowed
    }
    const slot = this.slots.take(await this.ownerOf(request))
    if (typeof slot !== 'function') return slot
    const followers = (this.resources as { followers: ResourceFollowers } | undefined)?.followers as ResourceFollowers
    const holds = [...keys.values()].map(({ uri, address }) => followers.hold(address, uri, () => this.handler.notify.resourceUpdated(uri)))
    whenClosed(reply, () => {
      for (const { release } of holds) release()
      slot()
    })
    if (listen.notifications !== undefined && keys.size > 0) listen.notifications.resourceSubscriptions = [...keys.values()].map(({ uri }) => uri)
    await Promise.all(holds.map(async ({ ready }) => await ready))
  }

  private async readChannel (request: FastifyRequest, uri: string): Promise<ReadResourceResult> {
    const address = await this.access(request, uri)
    if (isRefusal(address)) throw refusalError(address)
    return channelReadResult(uri, await this.channels.realtime().readChannel(address.channel, address.key))
  }

  /**
   * The channel key `uri` names, when this request may watch it (docs/realtime.md: with `auth`, a valid
   * credential first, as the channel's stream requires; then the watch rule), else why not. Fail closed:
   * anything but a yes is a refusal.
   */
  private async access (request: FastifyRequest, uri: unknown): Promise<ChannelAddress | Refusal> {
    const { channels, auth } = this.channels
    const rule = auth.watchRule
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

/** The tools of one audience, and its `tools/list` answer as bytes made once: only the id changes. */
interface ToolView extends Tools {
  list: (id: string | number) => Buffer
}

/** What reading and following channels need: the declared channels, the request's credential, the watch rule. */
interface ChannelAccess {
  channels: ReadonlyMap<string, WatchableChannel>
  /** The request's credential, and the watch rule (`auth.watchRule`), shared with the channels' streams. */
  auth: BearerAuth
  /** Started by `ready()`, before any request comes. */
  realtime: () => Realtime
}

interface ListenRequest {
  id: unknown
  /** What the request asks to follow: `params.notifications.resourceSubscriptions`. */
  uris: unknown[]
  /** `params.notifications` when it names resources: the SDK is handed each key once there. */
  notifications?: { resourceSubscriptions: unknown[] }
}

/** The body as a `subscriptions/listen` request, when it is one (a batch never is: the SDK serves listens alone). */
function listenRequestOf (body: unknown): ListenRequest | undefined {
  const message = body as { method?: unknown, id?: unknown, params?: { notifications?: { resourceSubscriptions?: unknown } } } | null
  if (message?.method !== 'subscriptions/listen') return undefined
  const notifications = message.params?.notifications
  const uris = notifications?.resourceSubscriptions
  return Array.isArray(uris) ? { id: message.id, uris, notifications: notifications as ListenRequest['notifications'] } : { id: message.id, uris: [] }
}

/** The request id a `notifications/cancelled` names, when the body is one (alone, as clients send it). */
function cancelledRequestOf (body: unknown): unknown {
  const message = body as { method?: unknown, params?: { requestId?: unknown } } | null
  return message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined
}

/** A 2025 `initialize` request (a batch never holds one: 2025-06-18 has no batches, and the SDK refuses it in one). */
function isInitialize (body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'initialize'
}

/**
 * What the handler reads of the request: its headers (the protocol's own among them: `Mcp-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`), and a signal that ends the exchange when the client goes away. Its URL goes
 * unused; the body is handed over parsed.
 */
function transportRequest (request: FastifyRequest, reply: FastifyReply): Request {
  const headers = webHeaders(request)
  const aborted = new AbortController()
  // The response's close: sent, or the connection gone (the request's own close comes once its body is read).
  whenClosed(reply, () => aborted.abort())
  return new Request('http://localhost/mcp', { method: request.method, headers, signal: aborted.signal })
}

/** Runs `then` once the response closes, or now when it has (the client left while its request was checked). */
function whenClosed (reply: FastifyReply, then: () => void): void {
  if (reply.raw.closed) then()
  else reply.raw.once('close', then)
}

/**
 * Streamable HTTP opens a stream for server-initiated messages with GET, and ends a session with DELETE.
 * Without a session there is neither, and the transport says so with 405, which clients expect.
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

/** After the I/O of this turn of the event loop. */
async function nextTurn (): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
}

function jsonRpcError (code: number, message: string): { jsonrpc: '2.0', error: { code: number, message: string }, id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null }
}
