import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, InjectOptions } from 'fastify'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { answerOf, InnerRequest, InnerResponse, InnerSocket } from './inner.js'
import { outcomeOf, refusal, type Outcome, type RouteResponse } from './outcome.js'
import type { Catalog } from '../catalog.js'
import type { Phases } from '../lifecycle.js'
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

  /**
   * The longest URL an inner request may have: what the server holds a direct request's head to (its
   * `maxHeaderSize`: Fastify's `http: { maxHeaderSize }`, else Node's, 16 KiB unless set), so a call never
   * makes (or logs) a URL that a direct call could not.
   */
  private readonly maxUrlLength: number

  /**
   * `catalog()` is undefined until `ready()` has built the manifest (and stays so when it failed);
   * `maxResultBytes` is the most of one route's body a call holds; once the app's lifecycle is closing, a
   * call is refused, whichever way it would go.
   */
  constructor (private readonly app: FastifyInstance, private readonly catalog: () => Catalog | undefined, private readonly maxResultBytes: number, private readonly lifecycle: Phases) {
    this.maxUrlLength = (app.server as { maxHeaderSize?: number }).maxHeaderSize ?? process.getBuiltinModule('node:http').maxHeaderSize
  }

  async dispatch (request: FastifyRequest, command: string, params: Record<string, unknown>, bounds: CallBounds = {}): Promise<Outcome> {
    const catalog = this.catalog()
    if (catalog === undefined) return refusal(500, 'INTERNAL_ERROR', 'The app did not start: ready() rejected, and its error says why.')
    const plan = this.plans.get(command) ?? this.planOf(catalog, command)
    if (plan === undefined) return refusal(404, 'UNKNOWN_COMMAND', `Unknown command "${command}". The manifest lists the commands.`)
    const planned = planRequest(plan, params, this.maxUrlLength)
    if ('invalid' in planned) return refusal(400, 'INVALID_PARAMS', planned.invalid)
    const astray = plan.pathParams.length === 0 ? undefined : this.astray(plan, planned.path, params, request)
    if (astray !== undefined) return refusal(400, 'INVALID_PARAMS', astray)
    if (this.lifecycle.closing) return refusal(503, 'INTERNAL_ERROR', 'The server is shutting down.')
    const { signal } = bounds
    if (isAborted(signal)) return CANCELLED
    const limit = bounds.maxBytes ?? this.maxResultBytes
    const headers = forwardedHeaders(request)
    let ended: Ended
    if (!plan.viaInject) {
      ended = await this.route(plan.method, planned.url, planned.payload, headers, request, limit, signal)
    } else {
      if (planned.payload !== undefined) {
        headers['content-type'] = 'application/json'
        headers['content-length'] = String(Buffer.byteLength(planned.payload))
      }
      const options: InjectOptions = {
        method: plan.method as HTTPMethods,
        url: planned.url,
        headers,
        // A stream, so that light-my-request can still close the request once the route has read its body.
        payload: planned.payload === undefined ? undefined : Readable.from([planned.payload]),
        remoteAddress: request.ip,
        // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
        authority: request.headers.host,
        validate: false
      }
      try {
        ended = await inject(this.app, options, limit, signal)
      } catch {
        // The response closed before its head: the caller went away, or the route destroyed it.
        ended = isAborted(signal) ? 'cancelled' : CUT_OFF
      }
    }
    if (ended === 'over-budget') {
      return { ...refusal(413, 'PAYLOAD_TOO_LARGE', `Command "${command}": its route's response passed ${limit} bytes (invoke.maxResultBytes), and was cut off there.`), overBudget: true }
    }
    if (ended === 'cancelled') return CANCELLED
    return outcomeOf(ended)
  }

  /**
   * The route's lifecycle on an inner request and response: Fastify's router takes them as it takes a
   * request off the wire (URL rewriting, constraints, hooks, parsing, validation, handler, serialisation,
   * `onSend`, `onResponse`), and the answer is read when the response finishes. Past `limit` bytes of body,
   * or once `signal` aborts, the response is destroyed and the request closed, as a real one is when its
   * connection goes: the route sees `request.raw` emit `close`, and a stream it sent is destroyed.
   */
  private route (method: string, url: string, payload: string | undefined, headers: IncomingHttpHeaders, request: FastifyRequest, limit: number, signal: AbortSignal | undefined): Promise<Ended> {
    if (payload !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(Buffer.byteLength(payload))
    }
    // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
    headers.host = request.headers.host
    const socket = new InnerSocket(request.ip, request.raw.socket)
    const inner = new InnerRequest(method, url, headers, socket, payload)
    const response = new InnerResponse(inner, limit)
    return new Promise((resolve) => {
      const cancel = (): void => { response.destroy() }
      signal?.addEventListener('abort', cancel, { once: true })
      response.on('error', ignore)
      response.on('close', () => {
        signal?.removeEventListener('abort', cancel)
        if (response.writableFinished) {
          resolve(answerOf(response))
          return
        }
        inner.aborted = true
        inner.destroy()
        socket.destroy()
        resolve(response.overLimit ? 'over-budget' : isAborted(signal) ? 'cancelled' : CUT_OFF)
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

/** What a call asked for when the caller went away: nobody reads it; a pipeline stops there. */
const CANCELLED = refusal(503, 'INTERNAL_ERROR', 'The call was cancelled: its caller went away before the answer.')

/** How one call ended: the route's response, or why there is none. */
type Ended = RouteResponse | 'over-budget' | 'cancelled'

/** What bounds one call, besides the server's limits. */
export interface CallBounds {
  /** Aborts when the caller goes away: the inner request is closed as a real one is. */
  signal?: AbortSignal
  /** The most bytes of the route's body the call holds (default `invoke.maxResultBytes`). */
  maxBytes?: number
}

function ignore (): void {}

function isAborted (signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

/**
 * A signal that aborts when the caller's connection closes before the answer was sent. The response's
 * `close` comes either way, once; after a complete answer it aborts nothing.
 */
export function callerGone (reply: FastifyReply): AbortSignal {
  const gone = new AbortController()
  // Gone already, while an app-wide hook ran: its close has come and gone.
  if (reply.raw.destroyed) gone.abort()
  else {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort()
    })
  }
  return gone.signal
}

/**
 * The call through `app.inject()`, its body read as a stream and counted as it arrives (the callback form
 * starts at once, where the promise form waits a tick). Past `limit` bytes, or once `signal` aborts, the
 * inner request is aborted: light-my-request destroys it (the route sees `close`) and its response (Fastify
 * then destroys a stream the route sent). Rejects when the response closed before its head.
 */
function inject (app: FastifyInstance, options: InjectOptions, limit: number, signal: AbortSignal | undefined): Promise<Ended> {
  const stop = new AbortController()
  const cancel = (): void => { stop.abort() }
  signal?.addEventListener('abort', cancel, { once: true })
  return new Promise<Ended>((resolve, reject) => {
    let settled = false
    const settle = (ended: Ended): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', cancel)
      resolve(ended)
    }
    app.inject({ ...options, payloadAsStream: true, signal: stop.signal }, (error, response) => {
      if (error !== null && error !== undefined) {
        signal?.removeEventListener('abort', cancel)
        reject(error)
        return
      }
      const { statusCode, headers } = response!
      const stream = response!.stream()
      const chunks: Buffer[] = []
      let bytes = 0
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes <= limit) {
          chunks.push(chunk)
          return
        }
        chunks.length = 0
        settle('over-budget')
        stop.abort()
      })
      stream.on('end', () => { settle({ statusCode, headers, body: Buffer.concat(chunks) }) })
      // Aborted (by the budget above, or the caller), or the route destroyed its response after the head.
      stream.on('error', () => {
        chunks.length = 0
        settle(isAborted(signal) ? 'cancelled' : CUT_OFF)
      })
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
