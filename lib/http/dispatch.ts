import type { FastifyInstance, FastifyRequest, HTTPMethods, InjectOptions } from 'fastify'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { answerOf, InnerRequest, InnerResponse, InnerSocket } from './inner.js'
import { outcomeOf, refusal, type Outcome, type RouteResponse } from './outcome.js'
import type { Catalog } from '../catalog.js'
import { planRequest, planRoute, type RoutePlan } from './route-plan.js'

/** Request headers that describe the caller's own connection or body, not the command call. */
const NOT_FORWARDED = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'content-length', 'content-type', 'content-encoding', 'expect', 'accept-encoding'
])

/**
 * Calls commands by name: each through Fastify's own router (`app.routing`) on its own route, with an
 * inner request and response kept in memory, so every hook, validator, serializer, error handler and auth
 * rule of the route applies, with the caller's headers and address. A route that needs a real connection
 * (`websocket: true`, or `config: { svcDispatch: 'inject' }`) is called through `app.inject()` instead.
 * Only commands of the catalog are reachable; the plugin never adds a credential.
 */
export class Dispatcher {
  /**
   * A command's plan is made on its first call and kept: making them all at `ready()` would cost an app of
   * 10,000 commands some 40 ms of start-up for commands that may never be invoked.
   */
  private readonly plans = new Map<string, RoutePlan>()

  /** Set as the app starts to close: a call from then on is refused, whichever way it would go. */
  private closing = false

  /** `catalog()` is undefined until `ready()` has built the manifest (and stays so when it failed). */
  constructor (private readonly app: FastifyInstance, private readonly catalog: () => Catalog | undefined) {
    app.addHook('preClose', async () => { this.closing = true })
  }

  async dispatch (request: FastifyRequest, command: string, params: Record<string, unknown>): Promise<Outcome> {
    const catalog = this.catalog()
    if (catalog === undefined) return refusal(500, 'INTERNAL_ERROR', 'The app did not start: ready() rejected, and its error says why.')
    const plan = this.plans.get(command) ?? this.planOf(catalog, command)
    if (plan === undefined) return refusal(404, 'UNKNOWN_COMMAND', `Unknown command "${command}". The manifest lists the commands.`)
    const planned = planRequest(plan, params)
    if ('invalid' in planned) return refusal(400, 'INVALID_PARAMS', planned.invalid)
    const astray = plan.pathParams.length === 0 ? undefined : this.astray(plan, planned.path, params, request)
    if (astray !== undefined) return refusal(400, 'INVALID_PARAMS', astray)
    if (this.closing) return refusal(503, 'INTERNAL_ERROR', 'The server is shutting down.')
    const headers = forwardedHeaders(request)
    if (!plan.viaInject) return outcomeOf(await this.route(plan.method, planned.url, planned.payload, headers, request))
    if (planned.payload !== undefined) headers['content-type'] = 'application/json'
    const options: InjectOptions = {
      method: plan.method as HTTPMethods,
      url: planned.url,
      headers,
      payload: planned.payload,
      remoteAddress: request.ip,
      // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
      authority: request.headers.host,
      validate: false
    }
    try {
      return outcomeOf(await inject(this.app, options))
    /* c8 ignore next 4 -- Fastify refuses to inject once the app is closing, and the preClose hook above
       refuses every call first; kept so that a refusal never leaves a call hanging. */
    } catch {
      return refusal(503, 'INTERNAL_ERROR', 'The server is shutting down.')
    }
  }

  /**
   * The route's lifecycle on an inner request and response: Fastify's router takes them as it takes a
   * request off the wire (URL rewriting, constraints, hooks, parsing, validation, handler, serialisation,
   * `onSend`, `onResponse`), and the answer is read when the response finishes.
   */
  private route (method: string, url: string, payload: string | undefined, headers: IncomingHttpHeaders, request: FastifyRequest): Promise<RouteResponse> {
    if (payload !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(Buffer.byteLength(payload))
    }
    // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
    headers.host = request.headers.host
    const socket = new InnerSocket(request.ip, request.raw.socket)
    const inner = new InnerRequest(method, url, headers, socket, payload)
    const response = new InnerResponse(inner)
    return new Promise((resolve) => {
      response.on('error', ignore)
      response.on('close', () => {
        resolve(response.writableFinished ? answerOf(response) : CUT_OFF)
      })
      this.app.routing(inner as unknown as IncomingMessage, response as unknown as ServerResponse)
    })
  }

  /**
   * The byte budget of a command's params: its route's `bodyLimit`, else the server's. Undefined for a
   * command the catalog does not have.
   */
  bodyLimitOf (command: string): number | undefined {
    const catalog = this.catalog()
    const plan = catalog === undefined ? undefined : this.plans.get(command) ?? this.planOf(catalog, command)
    return plan === undefined ? undefined : plan.bodyLimit ?? this.app.initialConfig.bodyLimit
  }

  /**
   * Why a filled-in path would not reach the command's own route, or undefined when it does. The router
   * prefers a static route to a parametric one (`GET /items/admin` over `GET /items/:id` for `id: 'admin'`),
   * and a param's value may end where the URL has another param or a regexp: the router is asked, with the
   * caller's host, and must find the params exactly as given.
   */
  private astray (plan: RoutePlan, path: string, params: Record<string, unknown>, request: FastifyRequest): string | undefined {
    // Host only: a request with Accept-Version never reaches execute, whose route has no version.
    const constraints: Record<string, string> = {}
    if (request.headers.host !== undefined) constraints.host = request.headers.host
    const found = this.app.findRoute({ method: plan.method as HTTPMethods, url: path, constraints })
    for (const name of plan.pathParams) {
      if (!Object.hasOwn(params, name)) continue
      const text = String(params[name])
      if (found === null || found.params[name] !== text) {
        return `Path param "${name}" = ${JSON.stringify(text)} does not reach this command's route (${plan.method} ${plan.url}): the URL it makes belongs to ${found === null ? 'no route' : 'another route'}.`
      }
    }
    return undefined
  }

  private planOf (catalog: Catalog, command: string): RoutePlan | undefined {
    const route = catalog.command(command)
    if (route === undefined) return undefined
    const plan = planRoute(route)
    this.plans.set(command, plan)
    return plan
  }
}

/** A response the route destroyed before it finished (a stream that failed after its first bytes). */
const CUT_OFF: RouteResponse = {
  statusCode: 502,
  headers: { 'content-type': 'text/plain' },
  body: 'The route\'s response broke off before it was complete.'
}

function ignore (): void {}

/** The callback form of `inject` starts at once, where the promise form waits a tick. */
function inject (app: FastifyInstance, options: InjectOptions): Promise<RouteResponse> {
  return new Promise((resolve, reject) => {
    app.inject(options, (error, response) => {
      /* c8 ignore next -- inject fails only once the app is closing, and dispatch refuses calls from then on */
      if (error !== null && error !== undefined) reject(error)
      else resolve({ statusCode: response!.statusCode, headers: response!.headers, body: response!.rawPayload })
    })
  })
}

/**
 * The caller's headers, less hop-by-hop and entity headers. Node keeps only the first of repeated
 * `Authorization` headers; all of them are passed on, so the route refuses the ambiguity as it would.
 */
function forwardedHeaders (request: FastifyRequest): IncomingHttpHeaders {
  const source = request.headers
  const headers: IncomingHttpHeaders = {}
  for (const name of Object.keys(source)) {
    if (NOT_FORWARDED.has(name) || name.startsWith('proxy-')) continue
    headers[name] = source[name]
  }
  if (source.authorization !== undefined) {
    const all = allValues(request.raw.rawHeaders, 'authorization')
    if (all.length > 1) (headers as Record<string, unknown>).authorization = all
  }
  return headers
}

function allValues (rawHeaders: string[], name: string): string[] {
  const values: string[] = []
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() === name) values.push(rawHeaders[index + 1])
  }
  return values
}
