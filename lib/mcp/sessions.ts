import { randomUUID } from 'node:crypto'
import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { CALLER_GONE, CallControl } from '../util/call-control.js'
import { ignoreFailure } from './streams.js'
import { addressId, refusalError, tooManyKeys, type ChannelAddress, type ResourceFollowers } from './resources.js'

/**
 * How long a session lives without a request and without an open stream: then it is closed, its
 * subscriptions and its slot let go. A client that comes back after that gets 404 and initializes again,
 * as Streamable HTTP has it.
 */
export const SESSION_TIMING = { idleMs: 5 * 60_000 }

export interface SessionsOptions {
  /** The SDK's transport for 2025 sessions. */
  Transport: typeof WebStandardStreamableHTTPServerTransport
  followers: ResourceFollowers
  /** Distinct channel keys one session may follow. */
  maxSubscriptions: number
  /** SSE comment interval of a session's streams, in ms. */
  keepAliveMs: number
}

/**
 * The 2025-revision sessions of one endpoint (docs/mcp.md): a client of 2025-11-25 or 2025-06-18 that
 * initializes gets one, so that `resources/subscribe` has somewhere to send `notifications/resources/updated`
 * (its stream, opened with GET). Sessions are per instance: the channel hub fans publishes out, so an update
 * on any instance reaches a subscriber on any other. Each holds a listen slot; all close on `app.close()`.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, LegacySession>()

  constructor (private readonly options: SessionsOptions) {}

  /**
   * Serves an `initialize` request in a new session: `server` makes its server (which reaches the session
   * through it), `release` lets its slot go. The session is kept only once the SDK has initialized it.
   */
  async open (server: (session: LegacySession) => Server, owner: string, release: () => void, request: Request, parsedBody: unknown): Promise<Response> {
    const session: LegacySession = new LegacySession(owner, this.options, () => {
      release()
      this.sessions.delete(session.id as string)
    })
    await session.connect(server(session))
    const response = await session.handle(request, parsedBody)
    if (session.id === undefined) await session.close()
    else this.sessions.set(session.id, session)
    return response
  }

  get (id: string): LegacySession | undefined {
    return this.sessions.get(id)
  }

  /** `preClose`: every session closed, its streams ended. */
  async closeAll (): Promise<void> {
    await Promise.all([...this.sessions.values()].map(async (session) => await session.close()))
  }
}

/** One 2025 session: its SDK transport and server, the channel keys it follows, the slot it holds. */
export class LegacySession {
  private readonly subscriptions = new Map<string, () => void>()
  /** The calls of the session answered without its transport, by JSON-RPC id: what `notifications/cancelled` may name. */
  private readonly calls = new Map<unknown, CallControl>()
  private readonly transport: WebStandardStreamableHTTPServerTransport
  private server: Server | undefined
  private idle: NodeJS.Timeout | undefined
  private streams = 0
  private closed = false

  constructor (
    /** Whose session it is: only requests of the same subject (or address) reach it. */
    readonly owner: string,
    private readonly options: SessionsOptions,
    private readonly onClose: () => void
  ) {
    this.transport = new options.Transport({
      sessionIdGenerator: randomUUID,
      // DELETE: the client ends its session.
      onsessionclosed: async () => { await this.close() },
      keepAliveMs: options.keepAliveMs
    })
  }

  get id (): string | undefined {
    return this.transport.sessionId
  }

  /** The revision its client negotiated: sessions are kept only once their `initialize` is answered. */
  get revision (): string {
    return (this.server as Server).getNegotiatedProtocolVersion() as string
  }

  /** A request of the session was answered without its transport: it stays alive for another idle period. */
  active (): void {
    this.touch()
  }

  /**
   * A call of the session answered without its transport (the SDK's server never sees it, so its own
   * `notifications/cancelled` handling cannot find it): the signal aborts when the session's client cancels
   * the request `id`; `end` forgets it.
   */
  callStarted (id: string | number): { control: CallControl, end: () => void } {
    const control = new CallControl()
    this.calls.set(id, control)
    return {
      control,
      end: () => { if (this.calls.get(id) === control) this.calls.delete(id) }
    }
  }

  /** The session's client cancelled the request `id` (`notifications/cancelled`). */
  cancel (id: unknown): void {
    this.calls.get(id)?.abort(CALLER_GONE())
  }

  async connect (server: Server): Promise<void> {
    this.server = server
    await server.connect(this.transport)
  }

  /** Serves one request of the session; it stays alive for another idle period. */
  async handle (request: Request, parsedBody: unknown): Promise<Response> {
    this.touch()
    return await this.transport.handleRequest(request, { parsedBody })
  }

  /** A stream of the session opened: the session is not idle until it closes (call the result then). */
  streamOpened (): () => void {
    this.streams++
    clearTimeout(this.idle)
    return () => {
      this.streams--
      this.touch()
    }
  }

  /**
   * Follows the key `address` for the session, its updates sent as `uri` (the URI that first named it): once
   * however many times it is asked, at most `maxSubscriptions` keys.
   */
  async subscribe (uri: string, address: ChannelAddress): Promise<void> {
    const id = addressId(address)
    if (this.subscriptions.has(id)) return
    const { maxSubscriptions, followers } = this.options
    if (this.subscriptions.size >= maxSubscriptions) throw refusalError(tooManyKeys(maxSubscriptions, this.subscriptions.size + 1))
    const server = this.server as Server
    const { ready, release } = followers.hold(address, this.id as string, () => { server.sendResourceUpdated({ uri }).catch(ignoreFailure) })
    this.subscriptions.set(id, release)
    try {
      await ready
    } catch (error) {
      this.unsubscribe(address)
      throw error
    }
  }

  unsubscribe (address: ChannelAddress): void {
    const id = addressId(address)
    const release = this.subscriptions.get(id)
    if (release === undefined) return
    this.subscriptions.delete(id)
    release()
  }

  /**
   * Called once: each way to close it (DELETE, idle expiry, `app.close()`) finds it among the sessions or
   * holds its timer, and closing takes it out of both before anything else.
   */
  async close (): Promise<void> {
    // Closing the transport ends the session's stream, whose close touches the session: no timer after this.
    this.closed = true
    clearTimeout(this.idle)
    for (const release of this.subscriptions.values()) release()
    this.subscriptions.clear()
    this.onClose()
    await this.transport.close()
    await (this.server as Server).close()
  }

  /** Idle from now, unless a stream is open (its closing touches it again). */
  private touch (): void {
    clearTimeout(this.idle)
    if (this.streams === 0 && !this.closed) this.idle = setTimeout(() => { this.close().catch(ignoreFailure) }, SESSION_TIMING.idleMs).unref()
  }
}
