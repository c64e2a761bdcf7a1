import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify'
import type { CommandSource } from './collect.js'
import { FST_SVC_AUTH_NOT_CONFIGURED, FST_SVC_UNAUTHORIZED } from './errors.js'
import type { Config } from './options.js'

/** The request property that holds the verifier's result on commands with `auth: 'required'`. */
export const CREDENTIAL_PROPERTY = 'svcCredential'

/** RFC 6750 b64token after the scheme; anything else (spaces, commas, empty) is a malformed token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i
const SCHEME = /^Bearer(?: |$)/i

type Verifier = (token: string, request: FastifyRequest) => unknown

/**
 * Bearer auth for commands with `auth: 'required'`. The `onRequest` hook is attached to exactly those
 * routes and their twins (HEAD, prefixed `'/'`), so no other route pays for it; it runs before the body
 * is parsed, so an anonymous caller learns nothing from body errors.
 */
export class BearerAuth {
  private verifier: Verifier | undefined
  private readonly challenge: string
  readonly protectedRoutes: string[] = []

  constructor (private readonly config: Config) {
    this.challenge = `Bearer realm="${config.name.replace(/["\\]/g, '\\$&')}"`
  }

  /** `onRoute` listener: protects the route when its command requires auth. */
  attach (routeOptions: RouteOptions, command: CommandSource): void {
    if (command.auth !== 'required') return
    if (!this.protectedRoutes.includes(command.route)) this.protectedRoutes.push(command.route)
    const existing = routeOptions.onRequest
    const own = existing === undefined ? [] : ([] as unknown[]).concat(existing)
    routeOptions.onRequest = [this.hook, ...own] as RouteOptions['onRequest']
  }

  /**
   * Picks the verifier once every plugin is loaded, so `@fastify/jwt` may be registered after this plugin.
   * Fails closed: a command that requires auth without a way to verify tokens stops the app from starting.
   */
  resolve (fastify: FastifyInstance): void {
    if (this.protectedRoutes.length === 0 && this.config.auth === undefined) return
    const routes = this.protectedRoutes.join(', ')
    if (this.config.auth === undefined) {
      throw new FST_SVC_AUTH_NOT_CONFIGURED(`${routes} require auth but the plugin has no "auth" option. Add auth: { type: 'bearer', description, verify }.`)
    }
    if (this.config.auth.verify !== undefined) {
      this.verifier = this.config.auth.verify
    } else if (fastify.hasRequestDecorator('jwtVerify')) {
      this.verifier = (_token, request) => (request as unknown as { jwtVerify: () => Promise<unknown> }).jwtVerify()
    } else {
      throw new FST_SVC_AUTH_NOT_CONFIGURED('"auth" has no verify function and @fastify/jwt is not registered. Pass auth.verify(token, request) or register @fastify/jwt.')
    }
  }

  private readonly hook: onRequestAsyncHookHandler = async (request, reply) => {
    const header = request.headers.authorization
    if (typeof header !== 'string' || !SCHEME.test(header)) {
      return this.refuse(reply, false, 'Missing bearer credential. Send "Authorization: Bearer <token>".')
    }
    const token = BEARER.exec(header)?.[1]
    const credential = token === undefined ? undefined : await this.verify(token, request)
    if (!credential) return this.refuse(reply, true, 'The bearer token was refused.')
    request[CREDENTIAL_PROPERTY] = credential
  }

  private async verify (token: string, request: FastifyRequest): Promise<unknown> {
    try {
      return await (this.verifier as Verifier)(token, request)
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
