import type { FastifyInstance, FastifyRequest, HTTPMethods, InjectOptions } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { outcomeOf, refusal, type Outcome, type RouteResponse } from './outcome.js'
import type { Catalog } from '../catalog.js'
import { planRequest, planRoute, type RoutePlan } from './route-plan.js'

/** Request headers that describe the caller's own connection or body, not the command call. */
const NOT_FORWARDED = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'content-length', 'content-type', 'content-encoding', 'expect', 'accept-encoding'
])

/**
 * Calls commands by name: each through `app.inject()` on its own route, so every hook, validator and
 * auth rule of the route applies, with the caller's headers and address. Only commands of the catalog
 * are reachable; the plugin never adds a credential.
 */
export class Dispatcher {
  /**
   * A command's plan is made on its first call and kept: making them all at `ready()` would cost an app of
   * 10,000 commands some 40 ms of start-up for commands that may never be invoked.
   */
  private readonly plans = new Map<string, RoutePlan>()

  /** `catalog()` is undefined until `ready()` has built the manifest (and stays so when it failed). */
  constructor (private readonly app: FastifyInstance, private readonly catalog: () => Catalog | undefined) {}

  async dispatch (request: FastifyRequest, command: string, params: Record<string, unknown>): Promise<Outcome> {
    const catalog = this.catalog()
    if (catalog === undefined) return refusal(500, 'INTERNAL_ERROR', 'The app did not start: ready() rejected, and its error says why.')
    const plan = this.plans.get(command) ?? this.planOf(catalog, command)
    if (plan === undefined) return refusal(404, 'UNKNOWN_COMMAND', `Unknown command "${command}". The manifest lists the commands.`)
    const planned = planRequest(plan, params)
    if ('invalid' in planned) return refusal(400, 'INVALID_PARAMS', planned.invalid)
    const headers = forwardedHeaders(request)
    if (planned.payload !== undefined) headers['content-type'] = 'application/json'
    const options: InjectOptions = {
      method: plan.method as HTTPMethods,
      url: planned.url,
      headers,
      payload: planned.payload,
      remoteAddress: request.ip,
      validate: false
    }
    try {
      return outcomeOf(await inject(this.app, options))
    } catch {
      // Fastify refuses to inject once the app is closing.
      return refusal(503, 'INTERNAL_ERROR', 'The server is shutting down.')
    }
  }

  private planOf (catalog: Catalog, command: string): RoutePlan | undefined {
    const route = catalog.command(command)
    if (route === undefined) return undefined
    const plan = planRoute(route)
    this.plans.set(command, plan)
    return plan
  }
}

/** The callback form of `inject` starts at once, where the promise form waits a tick. */
function inject (app: FastifyInstance, options: InjectOptions): Promise<RouteResponse> {
  return new Promise((resolve, reject) => {
    app.inject(options, (error, response) => {
      if (error !== null && error !== undefined) reject(error)
      else resolve(response as RouteResponse)
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
