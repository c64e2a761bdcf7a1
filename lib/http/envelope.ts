import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { codeOfStatus, type CommandErrorBody } from '../manifest/invocation.js'
import type { Outcome } from './outcome.js'

/** Answers a refused envelope: the plugin's own `INVALID_REQUEST`. */
export function sendInvalidRequest (reply: FastifyReply, message: string, requestId: unknown): FastifyReply {
  return sendError(reply, { code: 'INVALID_REQUEST', message, status: 400 }, requestId)
}

export function sendError (reply: FastifyReply, error: CommandErrorBody, requestId: unknown): FastifyReply {
  const body: Record<string, unknown> = { ok: false, error }
  if (requestId !== undefined) body.requestId = requestId
  return reply.code(error.status).send(body)
}

/** The route's outcome as the outer response: 200 with the result, or the route's status with the error. */
export function sendOutcome (reply: FastifyReply, outcome: Outcome, requestId: unknown): FastifyReply {
  if (outcome.headers !== undefined) relayHeaders(reply, outcome.headers)
  if (!outcome.ok) return sendError(reply, outcome.error, requestId)
  // The route's JSON text, already checked, goes into the envelope as it is: no parse, no stringify.
  if (outcome.json !== undefined) {
    const tail = requestId === undefined ? '}' : `,"requestId":${JSON.stringify(requestId)}}`
    return reply.type('application/json; charset=utf-8').send(`{"ok":true,"result":${outcome.json}${tail}`)
  }
  const body: Record<string, unknown> = { ok: true, result: outcome.result }
  if (outcome.encoding !== undefined) {
    body.encoding = outcome.encoding
    body.contentType = outcome.contentType
  }
  if (requestId !== undefined) body.requestId = requestId
  return reply.send(body)
}

/** The `Set-Cookie` values each outer reply relayed from its command's route. */
const relayedCookies = new WeakMap<FastifyReply, string[]>()

/** `set-cookie` values add up (a pipeline relays every step's); other headers take the latest value. */
export function relayHeaders (reply: FastifyReply, headers: OutgoingHttpHeaders): void {
  for (const name of Object.keys(headers)) {
    reply.header(name, headers[name])
    if (name === 'set-cookie') relayedCookies.set(reply, [...relayedCookies.get(reply) ?? [], ...[headers[name] as string | string[]].flat()])
  }
}

/** A `Set-Cookie` value's cookie name. */
const cookieName = (value: string): string => value.slice(0, value.indexOf('=')).trim()

/**
 * `onSend` of execute and pipeline: the cookies a command's route set win over those the outer request's own
 * app-wide hooks add of the same name (a session plugin saves an empty session for the outer request too,
 * after the route's log-in cookie, and a client keeps the last cookie of a name). Route-level `onSend` hooks
 * run after the app's, so every cookie is there by now.
 */
export async function routeCookiesWin (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const relayed = relayedCookies.get(reply)
  if (relayed === undefined) return payload
  const names = new Set(relayed.map(cookieName))
  const values = [reply.getHeader('set-cookie') as string | string[]].flat()
  // An outer session cookie identical to the route's (the same session, re-sent) is said once.
  const kept = [...new Set(values.filter((value) => relayed.includes(value) || !names.has(cookieName(value))))]
  if (kept.length < values.length) reply.removeHeader('set-cookie').header('set-cookie', kept)
  return payload
}

/** The plugin's own refusals of the outer request, by their error code, and their envelope code. */
const REFUSAL_CODES: Record<string, string> = {
  FST_SVC_FORBIDDEN_ORIGIN: 'FORBIDDEN_ORIGIN',
  FST_SVC_FORBIDDEN_HOST: 'FORBIDDEN_HOST'
}

/**
 * Errors raised before the handler runs, on the outer request: another origin or a rebound host
 * (`FORBIDDEN_ORIGIN`, `FORBIDDEN_HOST`), a body that is not JSON, too large or of
 * another media type (`INVALID_REQUEST`, `PAYLOAD_TOO_LARGE`), or an app-wide hook that threw (its status
 * gives the code, as for a route). Always the envelope, so a client has one format to read.
 */
export function envelopeErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500
  if (status >= 500) request.log.error({ err: error }, 'invocation request failed')
  const parsing = typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_') && status !== 413
  const code = Object.hasOwn(REFUSAL_CODES, error.code) ? REFUSAL_CODES[error.code] : parsing ? 'INVALID_REQUEST' : codeOfStatus(status)
  const body: CommandErrorBody = { code, message: error.message, status }
  if (typeof error.code === 'string') body.cause = error.code
  sendError(reply, body, undefined)
}
