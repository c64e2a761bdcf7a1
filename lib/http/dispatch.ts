import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import type { Catalog } from '../catalog.js'
import type { Phases } from '../lifecycle.js'
import type { BearerAuth } from './auth.js'
import { CALLER_GONE, CallCancelled, CallControl, reasonOf, type CancelSource, type Progress } from '../util/call-control.js'
import type { LiveCalls } from './call.js'
import { forwardedHeaders } from './headers.js'
import type { ResponseTap } from './inner.js'
import { outcomeOf, refusal, type Outcome } from './outcome.js'
import { InjectCall, RouterCall, type RouteCall } from './route-call.js'
import { planRequest, planRoute, type RoutePlan } from './route-plan.js'

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

  /** The two ways of calling a route: Fastify's router in memory, or `app.inject()`. */
  private readonly router: RouteCall
  private readonly injector: RouteCall

  /**
   * `catalog()` is undefined until `ready()` has built the manifest (and stays so when it failed);
   * `maxResultBytes` is the most of one route's body a call holds; once the app's lifecycle is closing, a
   * call is refused, whichever way it would go. `timeout`: the deadline of a call in milliseconds (`0`:
   * none) unless its command sets its own; `live`: the calls still running, cancelled when the app closes.
   */
  constructor (
    private readonly app: FastifyInstance,
    private readonly catalog: () => Catalog | undefined,
    readonly maxResultBytes: number,
    private readonly lifecycle: Phases,
    private readonly timeout: number,
    private readonly live: LiveCalls,
    /** Who a hidden command exists for. */
    private readonly auth: Pick<BearerAuth, 'sees'>
  ) {
    this.maxUrlLength = (app.server as { maxHeaderSize?: number }).maxHeaderSize ?? process.getBuiltinModule('node:http').maxHeaderSize
    this.router = new RouterCall(app)
    this.injector = new InjectCall(app)
  }

  async dispatch (request: FastifyRequest, command: string, params: Record<string, unknown>, bounds: CallBounds = {}): Promise<Outcome> {
    const catalog = this.catalog()
    if (catalog === undefined) return refusal(500, 'INTERNAL_ERROR', 'The app did not start: ready() rejected, and its error says why.')
    const plan = this.plans.get(command) ?? this.planOf(catalog, command)
    if (plan === undefined) return unknownCommand(command)
    // A hidden command the caller may not see is unknown to it, in the same words (DESIGN §15).
    if (catalog.hidden.size > 0 && !(await this.exists(request, command))) return unknownCommand(command)
    const planned = planRequest(plan, params, this.maxUrlLength)
    if ('invalid' in planned) return refusal(400, 'INVALID_PARAMS', planned.invalid)
    const astray = plan.pathParams.length === 0 ? undefined : this.astray(plan, planned.path, params, request)
    if (astray !== undefined) return refusal(400, 'INVALID_PARAMS', astray)
    if (this.lifecycle.closing) return refusal(503, 'INTERNAL_ERROR', 'The server is shutting down.')
    const { signal, caller } = bounds
    // Only the SDK path's signal can have aborted already (its client left while the SDK read the request);
    // no test can time that.
    /* c8 ignore next */
    if (signal?.aborted === true) return cancelledBy(reasonOf(signal))
    const response = caller?.raw
    // Gone already, while an app-wide hook ran: its close has come and gone.
    if (response?.destroyed === true) return cancelledBy(CALLER_GONE())
    const limit = bounds.maxBytes ?? this.maxResultBytes
    const { payload, url } = planned
    // The call's own cancellation: the route's `request.svc.signal`, aborted by the caller, the deadline or
    // the app closing; the route's request is closed when it aborts.
    const control = new CallControl(bounds.progress)
    const cancel = (): void => { control.abort(reasonOf(signal!)) }
    signal?.addEventListener('abort', cancel, { once: true })
    // The caller's connection closing before its answer was sent; after a complete answer it aborts nothing.
    const gone = (): void => { if (!response!.writableFinished) control.abort(CALLER_GONE()) }
    response?.once('close', gone)
    // Among the live calls: aborted at its deadline, or when the app closes.
    const timeout = plan.timeout ?? this.timeout
    const live = this.live.add(control, timeout, () => deadlinePassed(command, timeout, plan.timeout === undefined))
    const call = { method: plan.method, url, payload, headers: forwardedHeaders(request, payload, planned.headers), caller: request, limit, control, tap: bounds.tap }
    let ended
    try {
      ended = await (plan.viaInject ? this.injector : this.router).call(call)
    } finally {
      // Nothing of the call outlives it: its listeners on the caller, its place among live calls.
      signal?.removeEventListener('abort', cancel)
      response?.removeListener('close', gone)
      this.live.delete(live)
    }
    if (ended === 'over-budget') {
      return { ...refusal(413, 'PAYLOAD_TOO_LARGE', `Command "${command}": its route's response passed ${limit} bytes (invoke.maxResultBytes), and was cut off there.`), overBudget: true }
    }
    if (ended === 'cancelled') return cancelledBy(control.reason!)
    return outcomeOf(ended, plan.stream)
  }

  /**
   * Whether a command of the catalog exists for the caller of `request`: true unless it is hidden (`svc.auth:
   * 'hidden'`) and the request's credential does not grant it. Synchronous for every command but a hidden one.
   */
  exists (request: FastifyRequest, command: string): boolean | Promise<boolean> {
    const scopes = this.catalog()?.hidden.get(command)
    return scopes === undefined || this.auth.sees(request, scopes)
  }

  /** Whether `command` is declared `svc.stream: true` (false for a command the catalog does not have). */
  streams (command: string): boolean {
    return this.planFor(command)?.stream === true
  }

  /** A command's plan, or undefined for a command the catalog does not have (or before the catalog). */
  private planFor (command: string): RoutePlan | undefined {
    const catalog = this.catalog()
    return catalog === undefined ? undefined : this.plans.get(command) ?? this.planOf(catalog, command)
  }

  /**
   * The byte budget of a command's params: its route's `bodyLimit`, else the server's. Undefined for a
   * command the catalog does not have.
   */
  bodyLimitOf (command: string): number | undefined {
    const plan = this.planFor(command)
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
        // One wording whether the URL reaches no route or another one: which, would tell of routes the caller may not see.
        return `Path param "${name}" = ${JSON.stringify(text)} does not reach this command's route (${plan.method} ${plan.url}): the URL it makes belongs to another route or to none.`
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

/** The answer to a command the catalog does not have, or that the caller may not see. */
function unknownCommand (command: string): Outcome {
  return refusal(404, 'UNKNOWN_COMMAND', `Unknown command "${command}". The manifest lists the commands.`)
}

/** What a cancelled call answers: its cause's status and code (nobody may read it; a pipeline stops there). */
function cancelledBy ({ status, code, message }: CallCancelled): Outcome {
  return refusal(status, code, message)
}

function deadlinePassed (command: string, timeout: number, fromOptions: boolean): CallCancelled {
  return new CallCancelled(504, 'TIMEOUT', `Command "${command}" did not finish within its deadline of ${timeout} ms (${fromOptions ? 'invoke.timeout' : 'svc.timeout'}), and was cancelled.`)
}

/** What bounds one call, besides the server's limits. */
export interface CallBounds {
  /**
   * The caller's own reply: the call is cancelled when its connection closes before the answer was sent.
   * Watched directly, which costs less than a signal made for it.
   */
  caller?: FastifyReply
  /** Cancels the call when it aborts (with a `CallCancelled` reason, for that reason; else the caller went away). */
  signal?: CancelSource
  /** The most bytes of the route's body the call holds (default `invoke.maxResultBytes`). */
  maxBytes?: number
  /** Where the route's `request.svc.progress()` reports go; dropped without. */
  progress?: (progress: Progress) => void
  /** Sees the route's body as it is written, and may take pieces of it (a streamed execute). */
  tap?: ResponseTap
}
