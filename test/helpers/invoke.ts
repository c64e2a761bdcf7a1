import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/** `POST /svc/execute` with `{ command, params }` through `app.inject()`. */
export function execute (app: FastifyInstance, command: string, params?: Record<string, unknown>, headers: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/svc/execute', headers, payload: params === undefined ? { command } : { command, params } })
}

/** `POST /svc/pipeline` with the given body. */
export function pipeline (app: FastifyInstance, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/svc/pipeline', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) })
}
