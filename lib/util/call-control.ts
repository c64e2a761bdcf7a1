/**
 * A call's cancellation and progress, as every surface that calls a command sees them: the dispatcher, the
 * route's `request.svc`, an MCP session that cancels a call by id.
 */

/** One progress report, as a streamed execute frames it. */
export interface Progress {
  progress: number
  total?: number
  message?: string
}

/**
 * Why a call was cancelled: what the call answers (`status`, `code`, `message`) when its route did not
 * finish. The reason of every signal the plugin aborts.
 */
export class CallCancelled extends Error {
  override readonly name = 'AbortError'
  constructor (readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

export const CALLER_GONE = (): CallCancelled => new CallCancelled(503, 'INTERNAL_ERROR', 'The call was cancelled: its caller went away before the answer.')
export const APP_CLOSING = (): CallCancelled => new CallCancelled(503, 'INTERNAL_ERROR', 'The call was cancelled: the server is shutting down.')

/** A call that can be stopped with a reason: an `AbortController`, or a `CallControl`. */
export interface Abortable {
  abort: (reason: CallCancelled) => void
}

/** What an inner request carries of its call: the call's signal, and where its progress goes. */
export interface CallLink {
  readonly signal: AbortSignal
  progress?: (progress: Progress) => void
}

/**
 * What may cancel a call from outside: an `AbortSignal`, or a `CallControl` (which costs no signal). Its
 * `reason`, when a `CallCancelled`, is the call's answer.
 */
export interface CancelSource {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener: (type: 'abort', listener: () => void, options?: { once: boolean }) => void
  removeEventListener: (type: 'abort', listener: () => void) => void
}

/**
 * One call's cancellation, without an `AbortSignal` until something asks for one: Node makes a signal in
 * microseconds, a cost every call would pay while few routes ever read `request.svc.signal`. Aborting runs
 * the listeners added here (the route call's, which closes the inner request) and aborts the signal, if
 * one was made; the first reason wins.
 */
export class CallControl implements CallLink, CancelSource, Abortable {
  reason: CallCancelled | undefined
  private controller: AbortController | undefined
  private listeners: Array<() => void> | undefined

  constructor (readonly progress?: (progress: Progress) => void) {}

  get aborted (): boolean {
    return this.reason !== undefined
  }

  get signal (): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController()
      if (this.reason !== undefined) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  abort (reason: CallCancelled): void {
    // The first reason is the call's; the listeners ran with it.
    this.reason ??= reason
    this.controller?.abort(this.reason)
    const listeners = this.listeners
    this.listeners = undefined
    listeners?.forEach((listener) => { listener() })
  }

  addEventListener (_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener)
  }

  removeEventListener (_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1
    if (index !== -1) this.listeners!.splice(index, 1)
  }
}

/** Why `source` aborted, as the call's cancellation: the caller went away unless it says otherwise. */
export function reasonOf (source: CancelSource): CallCancelled {
  return source.reason instanceof CallCancelled ? source.reason : CALLER_GONE()
}
