import type { IncomingMessage, ServerResponse } from 'node:http'
import { APP_CLOSING, CALLER_GONE, type Abortable, type CallLink, type Progress } from '../util/call-control.js'

/**
 * What a route sees of the call it serves, as `request.svc` (docs/long-running.md): `signal`, which aborts
 * when nobody wants the answer any more, and `progress()`, which reports how far it got. On a direct
 * request both are made on first use, so a route that never reads them costs nothing; on an inner request
 * (execute, pipeline, MCP) they are the call's own, which the dispatcher links to the request.
 */
export interface SvcRequest {
  /** Aborts, with a `CallCancelled` reason naming the cause, when the answer is no longer wanted. */
  readonly signal: AbortSignal
  /** Reports progress (`progress` increasing; a call that does not increase it is dropped). */
  progress: (progress: number, options?: { total?: number, message?: string }) => void
}

/** The calls still running, aborted together when the app starts closing. */
export class LiveCalls {
  private readonly calls = new Set<Abortable>()

  add (call: Abortable): void {
    this.calls.add(call)
  }

  delete (call: Abortable): void {
    this.calls.delete(call)
  }

  /** Aborts every call still running: the app closes. */
  abortAll (): void {
    const reason = APP_CLOSING()
    for (const call of this.calls) call.abort(reason)
    this.calls.clear()
  }
}

/** An inner request made by the dispatcher, which carries its call. */
interface LinkedRequest {
  svcCall?: CallLink
}

const SVC = Symbol('svc')

/** `request.svc` of `raw`: one per request, made on first use. */
export function svcOf (raw: IncomingMessage, live: LiveCalls): SvcRequest {
  const holder = raw as unknown as { [SVC]?: SvcRequest }
  holder[SVC] ??= new RequestCall(raw, live)
  return holder[SVC]
}

class RequestCall implements SvcRequest {
  private controller: AbortController | undefined
  private last = -Infinity

  constructor (private readonly raw: IncomingMessage, private readonly live: LiveCalls) {}

  get signal (): AbortSignal {
    const link = (this.raw as LinkedRequest).svcCall
    if (link !== undefined) return link.signal
    if (this.controller === undefined) this.controller = this.watch()
    return this.controller.signal
  }

  progress (progress: number, options: { total?: number, message?: string } = {}): void {
    if (!Number.isFinite(progress)) throw new TypeError(`request.svc.progress(progress): progress must be a finite number; got ${String(progress)}.`)
    const { total, message } = options
    if (total !== undefined && !Number.isFinite(total)) throw new TypeError(`request.svc.progress(): total must be a finite number when given; got ${String(total)}.`)
    if (message !== undefined && typeof message !== 'string') throw new TypeError('request.svc.progress(): message must be a string when given.')
    const sink = (this.raw as LinkedRequest).svcCall?.progress
    // A direct call has nobody to tell; progress that does not increase tells nobody anything new.
    if (sink === undefined || progress <= this.last) return
    this.last = progress
    const report: Progress = { progress }
    if (total !== undefined) report.total = total
    if (message !== undefined) report.message = message
    sink(report)
  }

  /**
   * A direct request's signal: it aborts when the response closes before it finished (the caller went
   * away), or when the app closes first. The response is watched, not the request: Node closes a request
   * once its body is read, while its caller still waits for the answer.
   */
  private watch (): AbortController {
    const controller = new AbortController()
    const { live } = this
    const response = responseOf(this.raw)
    if (response === undefined || response.writableFinished) return controller
    if (response.destroyed) {
      controller.abort(CALLER_GONE())
      return controller
    }
    live.add(controller)
    response.once('close', () => {
      live.delete(controller)
      if (!response.writableFinished) controller.abort(CALLER_GONE())
    })
    return controller
  }
}

/**
 * The response Node is writing to `raw`: it keeps the one it writes on the socket (`_httpMessage`) until it
 * finishes. Undefined where there is none for this request (an HTTP/2 request): its signal then aborts only
 * when the app closes.
 */
function responseOf (raw: IncomingMessage): ServerResponse | undefined {
  const response = (raw.socket as { _httpMessage?: ServerResponse | null } | null)?._httpMessage
  return response?.req === raw ? response : undefined
}
