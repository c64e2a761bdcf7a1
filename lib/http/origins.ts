import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import { FST_SVC_FORBIDDEN_HOST, FST_SVC_FORBIDDEN_ORIGIN } from '../errors.js'

export interface OriginsConfig {
  baseUrl: string
  /** Normalised origins; `'*'` accepts every origin. */
  allowedOrigins: string[]
  /** Lower-case hosts, `name` (any port) or `name:port`. */
  allowedHosts: string[]
}

/** Host names that can only mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])
/**
 * How many accepted `Host` values are remembered, so that the usual few are not parsed again on every
 * request. Only accepted ones, and no more than this: when full it starts again, so a client sending
 * endless new values (every port of localhost) neither grows it nor keeps it full for the others.
 */
const REMEMBERED_HOSTS = 64

/**
 * The check that every endpoint that acts (execute, pipeline, the streams, MCP, the page) runs first on
 * each request, against cross-site requests and DNS rebinding (docs/security.md, the MCP transport's MUST):
 * - an `Origin` header, when sent, must be `baseUrl`'s origin, one of `allowedOrigins`, or — on a request
 *   that arrived on a loopback address — a loopback origin;
 * - a request that arrived on a loopback address must name in `Host` a loopback name, `baseUrl`'s host or
 *   one of `allowedHosts`: a page whose DNS name was rebound to 127.0.0.1 names its own host there.
 * "Arrived on a loopback address" is the connection's local address, so a server listening on 0.0.0.0 is
 * protected from rebinding on its loopback interface too. `app.inject()` has no connection: only the
 * `Origin` rule applies to it.
 */
export class OriginPolicy {
  private readonly origins: Set<string>
  private readonly anyOrigin: boolean
  private readonly hosts: Set<string>
  private readonly acceptedHosts = new Set<string>()
  /** Named so that `app.printRoutes({ includeHooks: true })` shows which routes it guards. */
  readonly onRequest: onRequestHookHandler

  constructor (config: OriginsConfig) {
    const base = new URL(config.baseUrl)
    this.origins = new Set([base.origin, ...config.allowedOrigins])
    this.anyOrigin = this.origins.has('*')
    this.hosts = new Set([base.host, base.hostname, ...config.allowedHosts])
    const svcOriginCheck: onRequestHookHandler = (request, reply, done) => {
      done(this.refusal(request))
    }
    this.onRequest = svcOriginCheck
  }

  /** The coded 403 for a request from another origin or a rebound host; undefined when it may act. */
  refusal (request: FastifyRequest): Error | undefined {
    const loopback = arrivedOnLoopback(request)
    const origin = request.headers.origin
    if (origin !== undefined && !this.anyOrigin && !this.acceptsOrigin(origin, loopback)) {
      return new FST_SVC_FORBIDDEN_ORIGIN(`Requests from origin ${JSON.stringify(origin)} may not act on this service. The server accepts its baseUrl's origin and the allowedOrigins option.`)
    }
    if (loopback && !this.acceptsHost(request.headers.host)) {
      return new FST_SVC_FORBIDDEN_HOST(`Host ${JSON.stringify(request.headers.host ?? '')} is not a name of this service. On a loopback address the server accepts localhost, 127.0.0.1, [::1], its baseUrl's host and the allowedHosts option.`)
    }
    return undefined
  }

  private acceptsOrigin (origin: string, loopback: boolean): boolean {
    const parsed = parseUrl(origin)
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return false
    if (this.origins.has(parsed.origin)) return true
    return loopback && LOOPBACK_NAMES.has(parsed.hostname)
  }

  private acceptsHost (host: string | undefined): boolean {
    if (host === undefined) return false
    if (this.acceptedHosts.has(host)) return true
    // The Host grammar has no user info, path, query or fragment: a value that brings any is refused.
    const parsed = parseUrl(`http://${host}`)
    if (parsed === undefined || parsed.href !== `http://${parsed.host}/`) return false
    const accepted = LOOPBACK_NAMES.has(parsed.hostname) || this.hosts.has(parsed.host) || this.hosts.has(parsed.hostname)
    if (accepted) {
      if (this.acceptedHosts.size === REMEMBERED_HOSTS) this.acceptedHosts.clear()
      this.acceptedHosts.add(host)
    }
    return accepted
  }
}

function parseUrl (text: string): URL | undefined {
  return URL.canParse(text) ? new URL(text) : undefined
}

/**
 * Whether each connection arrived on a loopback address, once per connection: its local address is asked
 * of the operating system on every read, and a kept-alive connection carries many requests.
 */
const onLoopback = new WeakMap<object, boolean>()

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a dual-stack socket's view of 127.0.0.1). */
function arrivedOnLoopback (request: FastifyRequest): boolean {
  const socket = request.socket
  let loopback = onLoopback.get(socket)
  if (loopback === undefined) {
    const address = socket.localAddress
    loopback = address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
    // A socket that has no address yet (or no longer) is asked again next time.
    if (address !== undefined) onLoopback.set(socket, loopback)
  }
  return loopback
}
