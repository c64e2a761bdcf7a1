import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { fetchManifest, requiredOptions } from '../helpers/app.js'

/**
 * Defect: options were read again after they were checked: mutating `options.auth` after `register()`
 * changed the served manifest (and could swap the verifier). What is checked at `register()` is copied.
 */

t.test('mutating the options after register() changes nothing', async (t) => {
  const verify = (token: string) => token === 'good' && { sub: 'a' }
  const options: SvcManifestOptions = {
    ...requiredOptions,
    auth: { type: 'bearer', description: 'Checked token', verify },
    events: { 'a.b': { description: 'Checked event' } },
    logSerializers: { req: () => 'checked' }
  } as SvcManifestOptions
  const app = Fastify()
  await app.register(svcManifest, options)
  app.get('/secret', { svc: { description: 'Secret', auth: 'required' } }, async () => 'secret')
  const auth = options.auth as { description: string, verify: unknown, type: string }
  auth.description = 'Mutated'
  auth.verify = () => ({ sub: 'anyone' })
  auth.type = 'basic'
  options.name = 'Mutated'
  options.maxAge = 1
  ;(options.events as Record<string, { description: string }>)['a.b'].description = 'Mutated event'
  ;(options.events as Record<string, unknown>)['c.d'] = { description: 'Added later' }
  await app.ready()
  const manifest = await fetchManifest(app)
  t.same(manifest.auth, { type: 'bearer', description: 'Checked token' })
  t.equal(manifest.name, 'Shop')
  t.same(Object.keys(manifest.events), ['a.b'])
  t.equal(manifest.events['a.b'].description, 'Checked event')
  t.equal((await app.inject('/.well-known/svc.json')).headers['cache-control'], 'public, max-age=300')
  t.equal((await app.inject({ url: '/secret', headers: { authorization: 'Bearer other' } })).statusCode, 401, 'the checked verifier is the one used')
  t.equal((await app.inject({ url: '/secret', headers: { authorization: 'Bearer good' } })).statusCode, 200)
})
