import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { verifyManifest } from '../../lib/client/index.js'
import type { Manifest, SvcManifestOptions } from '../../lib/index.js'

/** The four options every manifest needs. */
export const requiredOptions = {
  name: 'Shop',
  description: 'Demo shop',
  version: '2.3.0',
  baseUrl: 'https://shop.example'
} as const

/**
 * A Fastify app with the plugin registered first, then `routes`, then ready; closed when `t` ends. A test
 * that closes it itself may: a second close is harmless.
 */
export async function readyApp (
  t: Test,
  options: Partial<SvcManifestOptions> = {},
  routes: (app: FastifyInstance) => void | Promise<void> = () => {},
  serverOptions: FastifyServerOptions = {}
): Promise<FastifyInstance> {
  const app = Fastify(serverOptions)
  t.teardown(() => app.close())
  await app.register(svcManifest, { ...requiredOptions, ...options })
  await routes(app)
  await app.ready()
  return app
}

/**
 * GETs the manifest as a client does and returns the parsed body, after checking it against the JSON
 * Schema of its layout and its checksum: every manifest the suite fetches is validated.
 */
export async function fetchManifest (app: FastifyInstance, path = '/.well-known/svc.json'): Promise<Manifest> {
  const response = await app.inject({ method: 'GET', url: path })
  if (response.statusCode !== 200) throw new Error(`manifest answered ${response.statusCode}: ${response.body}`)
  const manifest = response.json()
  // Strict: what the plugin serves has every field of its layout and nothing else.
  const { ok, errors } = verifyManifest(manifest, { strict: true })
  if (!ok) throw new Error(`the served manifest does not match its schema:\n${errors.join('\n')}`)
  return manifest as Manifest
}

/** A command that uses every command field: params with a description and a default, returns, tags, hints, auth. */
export function addCartItemCommand (app: FastifyInstance): void {
  app.post('/cart/items', {
    svc: {
      description: 'Add an item to the cart',
      params: Type.Object({ sku: Type.String({ description: 'Product SKU' }), quantity: Type.Optional(Type.Integer({ default: 1 })) }),
      returns: Type.Ref('Product'),
      tags: ['cart'],
      hints: { idempotent: false, sideEffects: true },
      auth: 'required'
    }
  }, async () => ({}))
}
