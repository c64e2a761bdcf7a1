import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify'
import type { CommandSource } from '../collect/sources.js'
import { FST_SVC_AUTH_NOT_CONFIGURED, FST_SVC_UNAUTHORIZED } from '../errors.js'
import type { Config, SvcVerify } from '../options.js'

/** The request property that holds the verifier's result on commands with `auth: 'required'`. */
export const CREDENTIAL_PROPERTY = 'svcCredential'

/** RFC 6750 §2.1: the scheme, one or more spaces, then a b64token (trailing spaces tolerated). Anything else is malformed. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i
/** The client tried the Bearer scheme (well formed or not), as opposed to sending no credential or another scheme. */
const BEARER_SCHEME = /^Bearer(?:\s|$)/i

const MISSING = 'Missing bearer credential. Send "Authorization: Bearer <token>".'
const REFUSED = 'The bearer token was refused.'

/**
 * Bearer auth for commands with `auth: 'required'`. The `onRequest` hook is attached to exactly those
 * routes and their twins (HEAD, prefixed `'/'`), so no other route pays for it; it runs before the body
 * is parsed, so an anonymous caller learns nothing from body errors.
 */
export class BearerAuth {
  /** A Set: every twin of a command attaches again, and a large app has thousands of commands. */
  private readonly protectedRoutes = new Set<string>()
  private verifier: SvcVerify | undefined
  private readonly challenge: string
  /** Named so that `app.printRoutes({ includeHooks: true })` shows which routes it guards. */
  private readonly hook: onRequestAsyncHookHandler

  constructor (private readonly config: Config) {
    this.challenge = `Bearer realm="${realmOf(config.name)}"`
    const svcBearerAuth: onRequestAsyncHookHandler = async (request, reply) => this.authenticate(request, reply)
    this.hook = svcBearerAuth
  }

  /** The `onRequest` hook itself, for the plugin's own routes that need a credential (event and channel streams). */
  get onRequest (): onRequestAsyncHookHandler {
    return this.hook
  }

  /** Listener for every route of a command: protects it when the command requires auth. */
  attach (routeOptions: RouteOptions, command: CommandSource): void {
    if (command.auth !== 'required') return
    this.protectedRoutes.add(command.route)
    // A new array: the user's own hooks keep running, after this one, and their array is not mutated.
    const own = routeOptions.onRequest === undefined ? [] : ([] as unknown[]).concat(routeOptions.onRequest)
    routeOptions.onRequest = [this.hook, ...own] as RouteOptions['onRequest']
  }

  /**
   * Picks the verifier once every plugin is loaded, so `@fastify/jwt` may be registered after this plugin.
   * Fails closed: auth that is required or declared, without a way to verify tokens, stops the app from starting.
   */
  resolve (fastify: FastifyInstance): void {
    const auth = this.config.auth
    if (auth === undefined) {
      if (this.protectedRoutes.size === 0) return
      throw new FST_SVC_AUTH_NOT_CONFIGURED(`${[...this.protectedRoutes].join(', ')} require auth but the plugin has no "auth" option. Add auth: { type: 'bearer', description, verify }.`)
    }
    if (auth.verify !== undefined) {
      this.verifier = auth.verify
    } else if (fastify.hasRequestDecorator('jwtVerify')) {
      this.verifier = verifyWithFastifyJwt
    } else {
      throw new FST_SVC_AUTH_NOT_CONFIGURED('"auth" has no verify function and @fastify/jwt is not registered. Pass auth.verify(token, request) or register @fastify/jwt.')
    }
  }

  private async authenticate (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const header = request.headers.authorization
    if (header === undefined || !BEARER_SCHEME.test(header)) return this.refuse(reply, false, MISSING)
    // Node keeps only the first of repeated Authorization headers; two credentials are ambiguous, so refuse.
    const token = authorizationCount(request) === 1 ? BEARER.exec(header)?.[1] : undefined
    const credential = token === undefined ? undefined : await this.verify(token, request)
    if (!credential) return this.refuse(reply, true, REFUSED)
    request[CREDENTIAL_PROPERTY] = credential
  }

  /** The verifier's result; a throw refuses the token, and its message goes to the log, not to the client. */
  private async verify (token: string, request: FastifyRequest): Promise<unknown> {
    try {
      return await (this.verifier as SvcVerify)(token, request)
    } catch (error) {
      request.log.info({ err: error }, 'bearer token refused by the verifier')
      return undefined
    }
  }

  private refuse (reply: FastifyReply, tokenSent: boolean, message: string): FastifyReply {
    const challenge = tokenSent ? `${this.challenge}, error="invalid_token"` : this.challenge
    return reply.code(401).header('www-authenticate', challenge).send(new FST_SVC_UNAUTHORIZED(message))
  }
}

/** `@fastify/jwt` reads the token from the request itself. */
function verifyWithFastifyJwt (_token: string, request: FastifyRequest): Promise<unknown> {
  return (request as unknown as { jwtVerify: () => Promise<unknown> }).jwtVerify()
}

function authorizationCount (request: FastifyRequest): number {
  const raw = request.raw.rawHeaders
  let count = 0
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'authorization') count++
  }
  return count
}

/**
 * The manifest name as an RFC 9110 quoted-string: quotes and backslashes escaped, and every character
 * outside printable ASCII percent-encoded as UTF-8, since Node refuses such characters in a header.
 */
function realmOf (name: string): string {
  return name.replace(/["\\]/g, '\\$&').replace(/[^\x20-\x7e]+/g, percentEncoded)
}

/** Lone surrogates become U+FFFD, where `encodeURIComponent` would throw. */
function percentEncoded (text: string): string {
  return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
}
