import type { FastifyInstance, FastifyRequest, HTTPMethods, InjectOptions } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { outcomeOf, refusal, type Outcome, type RouteResponse } from './outcome.js'
import type { CatalogCommand } from '../catalog.js'
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
  private plans = new Map<string, RoutePlan>()

  constructor (private readonly app: FastifyInstance) {}

  /** Called once the catalog is built: a plan per command, so a call does no parsing of URLs. */
  prepare (commands: Iterable<CatalogCommand>): void {
    const plans = new Map<string, RoutePlan>()
    for (const command of commands) plans.set(command.name, planRoute(command))
    this.plans = plans
  }

  async dispatch (request: FastifyRequest, command: string, params: Record<string, unknown>): Promise<Outcome> {
    const plan = this.plans.get(command)
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
