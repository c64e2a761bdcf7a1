import fastifyJwt from '@fastify/jwt'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from './app.js'

/** The tokens of the audiences' shop: an admin (scope `admin`), a user, and an operator (scope `ops`). */
export const AUDIENCE_TOKENS: Record<string, Record<string, unknown>> = {
  'admin-token': { sub: 'root', scope: 'admin ops' },
  'user-token': { sub: 'alice' },
  'ops-token': { sub: 'olga', scope: 'ops' }
}

export const JWT_SECRET = 'a-secret-of-the-shop-that-is-long-enough'

/**
 * A shop with one public command (`catalog.list`), one that requires a credential (`orders.list`) and two
 * hidden ones: `admin.stats` (scope `admin`) and `ops.restart` (scope `ops`, a POST with a param). Verified by
 * `auth.verify` over AUDIENCE_TOKENS, or, with `jwt`, by @fastify/jwt (sign the tokens' payloads with
 * `app.jwt.sign`). `hidden: false` declares the two as `required` instead.
 */
export async function audienceShop (t: Test, { jwt = false, hidden = true, options = {}, routes }: {
  jwt?: boolean
  hidden?: boolean
  options?: Partial<SvcManifestOptions>
  routes?: (app: FastifyInstance) => void
} = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  const verify = jwt ? undefined : (token: string) => AUDIENCE_TOKENS[token]
  await app.register(svcManifest, { ...requiredOptions, auth: { type: 'bearer', description: 'Shop tokens', verify }, ...options })
  if (jwt) await app.register(fastifyJwt, { secret: JWT_SECRET })
  const auth = hidden ? 'hidden' as const : 'required' as const
  app.get('/catalog', { svc: { name: 'catalog.list', description: 'The catalogue' } }, async () => ({ items: ['tea'] }))
  app.get('/orders', { svc: { name: 'orders.list', description: 'Your orders', auth: 'required' } }, async () => ({ orders: [] }))
  app.get('/admin/stats', { svc: { description: 'Sales statistics', auth, scopes: ['admin'] } }, async (request) => ({ sales: 42, by: (request.svcCredential as { sub: string }).sub }))
  app.post('/ops/restart', {
    svc: { description: 'Restart a worker', auth, scopes: ['ops'], params: Type.Object({ worker: Type.String() }) }
  }, async (request) => ({ restarted: (request.body as { worker: string }).worker }))
  routes?.(app)
  await app.ready()
  return app
}

/** The Authorization header of `token`. */
export const withToken = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` })
