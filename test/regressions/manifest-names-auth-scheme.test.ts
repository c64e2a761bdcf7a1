import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { createManifestClient } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'
import { cli } from '../helpers/cli.js'
import { listening } from '../helpers/net.js'

// Measured: an agent holding only the manifest of a RealWorld-style app (`Authorization: Token …`) sent
// `Bearer`, was refused, and learned the scheme from the 401's challenge; the client and the CLI could only
// send `Bearer`. The manifest's auth now names a scheme other than Bearer, and the client sends it.

async function service (t: Parameters<typeof listening>[0], auth: Partial<NonNullable<SvcManifestOptions['auth']>>): Promise<string> {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(svcManifest, {
    ...requiredOptions,
    auth: { type: 'bearer', description: 'JWT', verify: (token) => token === 'good' ? { sub: 'alice' } : null, ...auth },
    events: { ping: { description: 'Ping' } }
  })
  app.get('/me', { svc: { description: 'Who am I', auth: 'required', returns: Type.Object({ sub: Type.String() }) } }, async (request) => request.svcCredential as object)
  return await listening(t, app)
}

t.test('auth.scheme other than Bearer is in the manifest, and the client and CLI send it', async (t) => {
  const origin = await service(t, { scheme: 'Token' })
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  const { manifest } = await client.get()
  t.same(manifest.auth, { type: 'bearer', description: 'JWT', scheme: 'Token' })
  t.same(await client.execute('me', {}, { token: 'good' }), { sub: 'alice' })
  const called = await cli('call', origin, 'me', '--token', 'good')
  t.equal(called.code, 0, called.stderr)
  t.same(JSON.parse(called.stdout), { sub: 'alice' })
  const controller = new AbortController()
  const subscribed = client.subscribe({ token: 'good', signal: controller.signal }, () => {})
  setTimeout(() => controller.abort(), 200)
  await t.resolves(subscribed, 'the events stream accepts the token sent with the manifest\'s scheme')
})

t.test('Bearer, the default, is not named: manifests of services that do not set it are unchanged', async (t) => {
  for (const auth of [{}, { scheme: 'bearer' }]) {
    const origin = await service(t, auth)
    const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
    t.same((await client.get()).manifest.auth, { type: 'bearer', description: 'JWT' })
    t.same(await client.execute('me', {}, { token: 'good' }), { sub: 'alice' })
  }
})
