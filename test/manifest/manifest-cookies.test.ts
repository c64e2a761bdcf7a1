import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

/**
 * Defect: app-wide hooks reached the manifest route: @fastify/session added `Set-Cookie` to the public 200
 * and to the 304, so a shared cache could store one visitor's session for everyone. A HEAD 304 also sent
 * `content-length: 0`. The manifest route now never carries Set-Cookie, and a 304 carries no length.
 */

const MANIFEST = '/.well-known/svc.json'

/** An app with a session plugin that saves a session on every request, and a hook that sets a cookie. */
async function sessionApp (pluginFirst: boolean): Promise<FastifyInstance> {
  const app = Fastify()
  if (pluginFirst) await app.register(svcManifest, requiredOptions)
  await app.register(fastifyCookie)
  await app.register(fastifySession, { secret: 'a secret with at least 32 characters', saveUninitialized: true, cookie: { secure: false } })
  app.addHook('onRequest', async (_request, reply) => {
    reply.setCookie('visitor', 'v1')
    reply.raw.setHeader('set-cookie', 'raw=1')
  })
  if (!pluginFirst) await app.register(svcManifest, requiredOptions)
  app.get('/page', async () => 'page')
  await app.ready()
  return app
}

for (const pluginFirst of [true, false]) {
  t.test(`plugin registered ${pluginFirst ? 'before' : 'after'} the session plugin: no Set-Cookie on the manifest`, async (t) => {
    const app = await sessionApp(pluginFirst)
    const page = await app.inject('/page')
    t.ok(page.headers['set-cookie'], 'the session plugin sets cookies on other routes (the test would catch a leak)')
    const ok = await app.inject(MANIFEST)
    t.equal(ok.statusCode, 200)
    t.equal(ok.headers['set-cookie'], undefined, 'GET 200')
    t.equal(ok.headers['cache-control'], 'public, max-age=300')
    const etag = ok.headers.etag as string
    for (const method of ['GET', 'HEAD'] as const) {
      const notModified = await app.inject({ method, url: MANIFEST, headers: { 'if-none-match': etag } })
      t.equal(notModified.statusCode, 304, method)
      t.equal(notModified.headers['set-cookie'], undefined, `${method} 304`)
      t.equal(notModified.headers['content-length'], undefined, `${method} 304: no content-length`)
    }
    const head = await app.inject({ method: 'HEAD', url: MANIFEST })
    t.equal(head.statusCode, 200)
    t.equal(head.headers['set-cookie'], undefined, 'HEAD 200')
    t.equal(head.headers['content-length'], String(ok.rawPayload.length), 'HEAD 200 gives the length of the GET body')
    t.equal(head.body, '')
  })
}

t.test('over a real socket too: no Set-Cookie, and a HEAD 304 without content-length', async (t) => {
  const app = await sessionApp(true)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const ok = await fetch(`${address}${MANIFEST}`)
  t.equal(ok.headers.get('set-cookie'), null)
  const etag = ok.headers.get('etag') as string
  await ok.arrayBuffer()
  const head = await fetch(`${address}${MANIFEST}`, { method: 'HEAD', headers: { 'if-none-match': etag } })
  t.equal(head.status, 304)
  t.equal(head.headers.get('set-cookie'), null)
  t.equal(head.headers.get('content-length'), null)
})
