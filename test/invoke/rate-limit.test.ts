import rateLimit from '@fastify/rate-limit'
import t from 'tap'
import Fastify from 'fastify'
import svcManifest from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

t.test('@fastify/rate-limit on a command, keyed by IP, sees the caller\'s address', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(rateLimit, { global: false })
    app.get('/quote', { config: { rateLimit: { max: 2, timeWindow: 60_000 } }, svc: { description: 'A quote' } }, async () => 'carpe diem')
  })
  const from = (remoteAddress: string) => app.inject({ method: 'POST', url: '/svc/execute', remoteAddress, payload: { command: 'quote' } })

  t.equal((await from('198.51.100.1')).statusCode, 200)
  const second = await from('198.51.100.1')
  t.equal(second.statusCode, 200)
  t.equal(second.headers['x-ratelimit-remaining'], '0', 'rate-limit headers are relayed')
  const third = await from('198.51.100.1')
  t.equal(third.statusCode, 429)
  t.equal(third.json().error.code, 'RATE_LIMITED')
  t.equal(third.json().error.status, 429)
  t.match(third.json().error.message, /Rate limit exceeded/)
  t.ok(Number(third.headers['retry-after']) > 0, 'retry-after is relayed')
  t.equal(third.headers['x-ratelimit-limit'], '2')

  const other = await from('198.51.100.2')
  t.equal(other.statusCode, 200, 'another caller has its own budget: the limit saw each caller\'s address')
})

t.test('an app-wide rate limit counts the outer request and the inner one', async (t) => {
  // Registered before the plugin, the limit covers the plugin's endpoints as well as the routes.
  const app = Fastify()
  await app.register(rateLimit, { max: 4, timeWindow: 60_000 })
  await app.register(svcManifest, requiredOptions)
  app.get('/quote', { svc: { description: 'A quote' } }, async () => 'carpe diem')
  t.teardown(() => app.close())
  t.equal((await execute(app, 'quote')).statusCode, 200, 'requests 1 and 2')
  t.equal((await execute(app, 'quote')).statusCode, 200, 'requests 3 and 4')
  const third = await execute(app, 'quote')
  t.equal(third.statusCode, 429, 'request 5, the outer one, is refused')
  t.equal(third.json().error.code, 'RATE_LIMITED', 'in the envelope')
})

t.test('over a real socket behind a proxy (trustProxy), each forwarded client has its own budget', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(rateLimit, { global: false })
    app.get('/quote', { config: { rateLimit: { max: 1, timeWindow: 60_000 } }, svc: { description: 'A quote' } }, async (request) => request.ip)
  }, { trustProxy: true })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/svc/execute`
  const from = (client: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: '{"command":"quote"}' })

  const first = await from('192.0.2.10')
  t.same(await first.json(), { ok: true, result: '192.0.2.10' }, 'the route sees the client the proxy named')
  const again = await from('192.0.2.10')
  t.equal(again.status, 429)
  t.equal(((await again.json()) as { error: { code: string } }).error.code, 'RATE_LIMITED')
  t.ok(again.headers.get('retry-after'))
  t.equal((await from('192.0.2.11')).status, 200, 'another client is not limited')
})
