import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify'
import type { CommandSource } from '../collect/sources.js'
import { FST_SVC_AUTH_NOT_CONFIGURED, FST_SVC_INSUFFICIENT_SCOPE, FST_SVC_UNAUTHORIZED } from '../errors.js'
import type { SvcAuthOptions } from '../option-types.js'
import type { Config } from '../options.js'
import { subjectReader, type SubjectOf } from '../realtime/addressing.js'
import { repeatedAuthorization } from './headers.js'

/** The request property that holds the verifier's result on commands with `auth` (`null` without a credential). */
export const CREDENTIAL_PROPERTY = 'svcCredential'

/** Where RFC 9728's protected resource metadata document lives, under the origin of `baseUrl`. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'

/** The @fastify/jwt errors that mean "no token was sent" rather than "the token is bad". */
const JWT_NO_TOKEN = new Set(['FST_JWT_NO_AUTHORIZATION_IN_HEADER', 'FST_JWT_NO_AUTHORIZATION_IN_COOKIE', 'FST_JWT_BAD_COOKIE_REQUEST'])

/**
 * Who may watch a channel key that has no `authorize` of its own (docs/realtime.md), on its stream and as an MCP
 * resource: with `auth`, a valid credential (`authenticate`, the streams' hook) whose subject is the key;
 * without, everyone.
 */
export interface WatchRule {
  /** The hook that requires a credential, when the plugin has `auth`. */
  authenticate?: onRequestAsyncHookHandler
  /** `auth.subject(credential)`, else the credential's `sub`. */
  subjectOf: SubjectOf
}

/** Reads a credential from a request: `undefined` when none was sent, `false` when one was sent and refused. */
type Verifier = (request: FastifyRequest) => Promise<unknown>
const NOT_SENT = Symbol('no credential sent')

/**
 * What a route's hook enforces: whether a credential is needed, and the scopes it must grant; `hidden`: the
 * route exists only for such a credential, and answers anyone else as an unknown URL.
 */
interface Guard {
  optional: boolean
  scopes: readonly string[]
  hidden?: boolean
}

/**
 * Auth for commands with `auth: 'required'` or `'optional'`: the `onRequest` hook is attached to exactly those
 * routes and their twins (HEAD, prefixed `'/'`), so no other route pays for it; it runs before the body is
 * parsed, so an anonymous caller learns nothing from body errors. The token is read from `Authorization:
 * <scheme> <token>` and given to `auth.verify`; without `verify`, @fastify/jwt's `request.jwtVerify()` finds
 * and checks it itself (its `extractToken`, cookie and `formatUser` options apply).
 */
export class BearerAuth {
  /** A Set: every twin of a command attaches again, and a large app has thousands of commands. */
  private readonly protectedRoutes = new Set<string>()
  private verifier: Verifier | undefined
  private readonly scheme: string
  /** `^<scheme> +<b64token> *$`, case-insensitive (RFC 6750 §2.1 with the configured scheme). */
  private readonly header: RegExp
  /** The client tried the scheme (well formed or not), as opposed to sending no credential or another scheme. */
  private readonly schemeTried: RegExp
  private readonly realm: string
  private readonly missing: string
  private readonly refused: string
  /** `, resource_metadata="…"` (RFC 9728) when authorization servers are configured, else `''`. */
  private readonly metadata: string
  /** One hook per kind of guard, shared by the routes with the same one; named for `printRoutes`. */
  private readonly hooks = new Map<string, onRequestAsyncHookHandler>()
  /** The one watch rule of channels, read by their streams and by MCP's channel resources. */
  readonly watchRule: WatchRule
  /** Each request's credential, checked once however many surfaces ask (a pipeline's steps, MCP's view and its calls). */
  private readonly checked = new WeakMap<FastifyRequest, Promise<unknown>>()

  constructor (private readonly config: Config) {
    this.scheme = config.auth?.scheme ?? 'Bearer'
    const word = this.scheme.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    this.header = new RegExp(`^${word} +([A-Za-z0-9\\-._~+/]+=*) *$`, 'i')
    this.schemeTried = new RegExp(`^${word}(?:\\s|$)`, 'i')
    this.realm = `realm="${realmOf(config.name)}"`
    const kind = this.scheme.toLowerCase() === 'bearer' ? 'bearer ' : ''
    this.missing = `Missing ${kind}credential. Send "Authorization: ${this.scheme} <token>".`
    this.refused = `The ${kind}token was refused.`
    this.metadata = config.auth?.authorizationServers === undefined ? '' : `, resource_metadata="${new URL(config.baseUrl).origin}${RESOURCE_METADATA_PATH}"`
    this.watchRule = { authenticate: config.auth === undefined ? undefined : this.onRequest, subjectOf: subjectReader(config.auth?.subject) }
  }

  /** The hook that requires a credential, for the plugin's own routes that need one (event and channel streams). */
  get onRequest (): onRequestAsyncHookHandler {
    return this.hookFor({ optional: false, scopes: [] })
  }

  /** Listener for every route of a command: guards it when the command has `auth`. */
  attach (routeOptions: RouteOptions, command: CommandSource): void {
    if (command.auth === undefined) return
    this.protectedRoutes.add(command.route)
    const hook = this.hookFor({ optional: command.auth === 'optional', scopes: command.scopes ?? [], hidden: command.auth === 'hidden' })
    // A new array: the user's own hooks keep running, after this one, and their array is not mutated.
    const own = routeOptions.onRequest === undefined ? [] : ([] as unknown[]).concat(routeOptions.onRequest)
    routeOptions.onRequest = [hook, ...own] as RouteOptions['onRequest']
  }

  /**
   * Picks the verifier once every plugin is loaded, so `@fastify/jwt` may be registered after this plugin.
   * Fails closed: auth that is used or declared, without a way to verify tokens, stops the app from starting.
   */
  resolve (fastify: FastifyInstance): void {
    const auth = this.config.auth
    if (auth === undefined) {
      if (this.protectedRoutes.size === 0) return
      throw new FST_SVC_AUTH_NOT_CONFIGURED(`${[...this.protectedRoutes].join(', ')} require auth but the plugin has no "auth" option. Add auth: { type: 'bearer', description, verify }.`)
    }
    if (auth.verify !== undefined) {
      this.verifier = this.headerVerifier(auth.verify)
    } else if (fastify.hasRequestDecorator('jwtVerify')) {
      this.verifier = jwtVerifier
    } else {
      throw new FST_SVC_AUTH_NOT_CONFIGURED('"auth" has no verify function and @fastify/jwt is not registered. Pass auth.verify(token, request) or register @fastify/jwt.')
    }
  }

  /**
   * The credential a request carries, checked as a command's hook checks it but without answering the
   * request (the MCP endpoint answers in JSON-RPC): what the verifier returned; `null` when none was
   * sent, or when the plugin has no `auth`; `false` when one was sent and refused.
   */
  async credentialOf (request: FastifyRequest): Promise<unknown> {
    if (this.verifier === undefined) return null
    let checked = this.checked.get(request)
    if (checked === undefined) {
      checked = this.verify(request).then((credential) => credential === NOT_SENT ? null : credential || false)
      this.checked.set(request, checked)
    }
    return await checked
  }

  /** The scopes a verified credential grants, read once (`auth.scopes`, else its claims). */
  grantedScopes (credential: unknown): ReadonlySet<string> {
    return new Set(scopesOf(this.config.auth as SvcAuthOptions, credential))
  }

  /** Whether a verified credential grants every one of `scopes`. */
  grants (credential: unknown, scopes: readonly string[]): boolean {
    return scopes.length === 0 || hasEvery(this.grantedScopes(credential), scopes)
  }

  /**
   * Whether the request's credential verifies and grants `scopes`: who a hidden command exists for. A request
   * without a credential, or with a refused one, sees none.
   */
  async sees (request: FastifyRequest, scopes: readonly string[]): Promise<boolean> {
    const credential = await this.credentialOf(request)
    return Boolean(credential) && this.grants(credential, scopes)
  }

  /** Whether the request's `Authorization` header uses the scheme of `auth` (well formed or not). */
  schemeSent (request: FastifyRequest): boolean {
    const header = request.headers.authorization
    return header !== undefined && this.schemeTried.test(header)
  }

  /** The 401 of a refused token, with its challenge, as a command's hook answers it. */
  refuseToken (reply: FastifyReply): FastifyReply {
    return this.refuse(reply, true, this.refused)
  }

  private hookFor (guard: Guard): onRequestAsyncHookHandler {
    const key = `${guard.hidden === true ? 'hidden' : guard.optional ? 'optional' : 'required'} ${guard.scopes.join(' ')}`
    let hook = this.hooks.get(key)
    if (hook === undefined) {
      const svcBearerAuth: onRequestAsyncHookHandler = async (request, reply) => this.authenticate(request, reply, guard)
      hook = svcBearerAuth
      this.hooks.set(key, hook)
    }
    return hook
  }

  /** The verifier's result, `NOT_SENT`, or a refusal (any falsy value). */
  private async verify (request: FastifyRequest): Promise<unknown> {
    return repeatedAuthorization(request) !== undefined ? false : await (this.verifier as Verifier)(request)
  }

  private async authenticate (request: FastifyRequest, reply: FastifyReply, guard: Guard): Promise<FastifyReply | undefined> {
    const credential = await this.verify(request)
    if (guard.hidden === true) {
      // Not there for this caller: the app's own answer to an unknown URL, never a 401 or 403 that would confirm it.
      if (credential !== NOT_SENT && credential && this.grants(credential, guard.scopes)) {
        request[CREDENTIAL_PROPERTY] = credential
        return
      }
      reply.callNotFound()
      return reply
    }
    if (credential === NOT_SENT) {
      if (guard.optional) return
      return this.refuse(reply, false, this.missing)
    }
    if (!credential) return this.refuse(reply, true, this.refused)
    if (guard.scopes.length > 0) {
      const granted = this.grantedScopes(credential)
      const missing = guard.scopes.filter((scope) => !granted.has(scope))
      if (missing.length > 0) {
        const challenge = `${this.scheme} ${this.realm}, error="insufficient_scope", scope="${guard.scopes.join(' ')}"${this.metadata}`
        return reply.code(403).header('www-authenticate', challenge).send(new FST_SVC_INSUFFICIENT_SCOPE(`The token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which this command requires.`))
      }
    }
    request[CREDENTIAL_PROPERTY] = credential
  }

  /** Reads `Authorization: <scheme> <token>` and gives the token to `auth.verify`; another scheme is no credential. */
  private headerVerifier (verify: NonNullable<SvcAuthOptions['verify']>): Verifier {
    return async (request) => {
      const header = request.headers.authorization
      if (header === undefined || !this.schemeTried.test(header)) return NOT_SENT
      const token = this.header.exec(header)?.[1]
      return token === undefined ? false : await refusedOnThrow(request, () => verify(token, request))
    }
  }

  private refuse (reply: FastifyReply, tokenSent: boolean, message: string): FastifyReply {
    const challenge = `${this.scheme} ${this.realm}${tokenSent ? ', error="invalid_token"' : ''}${this.metadata}`
    return reply.code(401).header('www-authenticate', challenge).send(new FST_SVC_UNAUTHORIZED(message))
  }
}

/** `@fastify/jwt` finds the token itself; its "no token" errors mean none was sent, any other that it was refused. */
async function jwtVerifier (request: FastifyRequest): Promise<unknown> {
  try {
    return await (request as unknown as { jwtVerify: () => Promise<unknown> }).jwtVerify()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    // Its extractToken option answering nothing is a bad request to it; with no Authorization header, nothing was sent.
    const noToken = JWT_NO_TOKEN.has(code as string) || (code === 'FST_JWT_BAD_REQUEST' && request.headers.authorization === undefined)
    if (noToken) return NOT_SENT
    request.log.info({ err: error }, 'bearer token refused by @fastify/jwt')
    return false
  }
}

/** The verifier's result; a throw refuses the token, and its message goes to the log, not to the client. */
async function refusedOnThrow (request: FastifyRequest, verify: () => unknown): Promise<unknown> {
  try {
    return await verify()
  } catch (error) {
    request.log.info({ err: error }, 'bearer token refused by the verifier')
    return false
  }
}

/** Whether `granted` holds every one of `scopes`. */
export function hasEvery (granted: ReadonlySet<string>, scopes: readonly string[]): boolean {
  return scopes.every((scope) => granted.has(scope))
}

/**
 * The scopes a credential grants: `auth.scopes(credential)` when given, else the `scope` claim split on spaces
 * (RFC 8693, JWT), else the `scp` claim (an array, or a string split on spaces), else a `scopes` array.
 */
function scopesOf (auth: SvcAuthOptions, credential: unknown): string[] {
  const listed = auth.scopes !== undefined ? auth.scopes(credential) : claimed(credential as Record<string, unknown>)
  return Array.isArray(listed) ? listed.filter((scope): scope is string => typeof scope === 'string') : []
}

function claimed (credential: Record<string, unknown>): unknown {
  for (const claim of [credential.scope, credential.scp, credential.scopes]) {
    if (typeof claim === 'string') return claim.split(' ')
    if (Array.isArray(claim)) return claim
  }
  return undefined
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
