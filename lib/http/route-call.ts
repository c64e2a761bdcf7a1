import type { FastifyInstance, FastifyRequest, HTTPMethods, InjectOptions } from 'fastify'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { CallControl } from '../util/call-control.js'
import { answerOf, InnerRequest, InnerResponse, InnerSocket, type ResponseTap } from './inner.js'
import type { RouteResponse } from './outcome.js'

/**
 * One way of running a command's route on a call the dispatcher has planned and checked. Two implement
 * it: `RouterCall`, Fastify's router on an inner request and response kept in memory (every command), and
 * `InjectCall`, `app.inject()` (a route that needs a real connection). Both hold at most `limit` bytes of
 * the route's body and close the inner request, as a real one is closed, when the call is aborted.
 */
export interface RouteCall {
  call: (call: InnerCall) => Promise<Ended>
}

/** A planned call: the route's method and URL filled in, its JSON body, and the caller it is made for. */
export interface InnerCall {
  method: string
  url: string
  payload: string | undefined
  /** The caller's forwarded headers, with those of `payload`. */
  headers: IncomingHttpHeaders
  caller: FastifyRequest
  /** The most bytes of the route's body the call holds. */
  limit: number
  /** The call's cancellation, and what the route's `request.svc` sees of it (on the router's inner request). */
  control: CallControl
  /** Sees the route's body as it is written (on the router's inner response). */
  tap?: ResponseTap
}

/** How one call ended: the route's response, or why there is none. */
export type Ended = RouteResponse | 'over-budget' | 'cancelled'

/** A response the route destroyed before it finished (a stream that failed after its first bytes). */
const CUT_OFF: RouteResponse = {
  statusCode: 502,
  headers: { 'content-type': 'text/plain' },
  body: 'The route\'s response broke off before it was complete.'
}

/**
 * The route's lifecycle on an inner request and response: Fastify's router takes them as it takes a
 * request off the wire (URL rewriting, constraints, hooks, parsing, validation, handler, serialisation,
 * `onSend`, `onResponse`), and the answer is read when the response finishes. Past `limit` bytes of body,
 * or once the call is aborted, the response is destroyed and the request closed, as a real one is when its
 * connection goes: the route sees `request.raw` emit `close`, and a stream it sent is destroyed.
 */
export class RouterCall implements RouteCall {
  constructor (private readonly app: FastifyInstance) {}

  async call ({ method, url, payload, headers, caller, limit, control, tap }: InnerCall): Promise<Ended> {
    // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
    headers.host = caller.headers.host
    const socket = new InnerSocket(caller.ip, caller.raw.socket)
    const inner = new InnerRequest(method, url, headers, socket, payload)
    inner.svcCall = control
    const response = new InnerResponse(inner, limit, tap)
    return await new Promise((resolve) => {
      const cancel = (): void => { response.destroy() }
      control.addEventListener('abort', cancel)
      response.on('error', ignore)
      response.on('close', () => {
        control.removeEventListener('abort', cancel)
        if (response.writableFinished) {
          // As on the wire, the request closes once its response is complete: cleanup written for
          // `request.raw.on('close')` runs.
          inner.destroy()
          resolve(answerOf(response))
          return
        }
        inner.aborted = true
        inner.destroy()
        socket.destroy()
        resolve(response.overLimit ? 'over-budget' : control.aborted ? 'cancelled' : CUT_OFF)
      })
      this.app.routing(inner as unknown as IncomingMessage, response as unknown as ServerResponse)
    })
  }
}

/**
 * The call through `app.inject()`, its body read as a stream and counted as it arrives (the callback form
 * starts at once, where the promise form waits a tick). Past `limit` bytes, or once the call is aborted, the
 * inner request is aborted: light-my-request destroys it (the route sees `close`) and its response (Fastify
 * then destroys a stream the route sent).
 */
export class InjectCall implements RouteCall {
  constructor (private readonly app: FastifyInstance) {}

  async call ({ method, url, payload, headers, caller, limit, control }: InnerCall): Promise<Ended> {
    try {
      return await this.inject({
        method: method as HTTPMethods,
        url,
        headers,
        // A stream, so that light-my-request can still close the request once the route has read its body.
        payload: payload === undefined ? undefined : Readable.from([payload]),
        remoteAddress: caller.ip,
        // The caller's Host: host constraints and Host-based tenancy see what a direct call shows them.
        authority: caller.headers.host,
        validate: false
      }, limit, control)
    } catch {
      // The response closed before its head: the route destroyed it (a cancelled call has settled before).
      return CUT_OFF
    }
  }

  /** Rejects when the response closed before its head, unless the call was cancelled first. */
  private inject (options: InjectOptions, limit: number, control: CallControl): Promise<Ended> {
    const stop = new AbortController()
    return new Promise<Ended>((resolve, reject) => {
      let settled = false
      const settle = (ended: Ended): void => {
        if (settled) return
        settled = true
        control.removeEventListener('abort', cancel)
        resolve(ended)
      }
      // The call ends when it is cancelled, whether or not the route ever answers: light-my-request closes
      // a request whose body was read as soon as it was read, so a route waiting for `close` may not stop.
      const cancel = (): void => {
        settle('cancelled')
        stop.abort()
      }
      control.addEventListener('abort', cancel)
      this.app.inject({ ...options, payloadAsStream: true, signal: stop.signal }, (error, response) => {
        if (error !== null && error !== undefined) {
          control.removeEventListener('abort', cancel)
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
          settle(control.aborted ? 'cancelled' : CUT_OFF)
        })
      })
    })
  }
}

function ignore (): void {}
