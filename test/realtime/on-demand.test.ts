import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { closedPort, listening } from '../helpers/net.js'
import { subscribe } from '../helpers/sse.js'

// An app that declares no event and no channel has no realtime hub after ready(): nothing to start, no
// broker to reach. Its events stream, which can never carry an event, starts one on demand.

t.test('no event, no channel: ready() needs no Redis, the events stream still opens, and close ends it', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0', realtime: { redis: `redis://127.0.0.1:${await closedPort()}` } })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_NOT_READY' }, 'before ready(), as for any app')
  const origin = await listening(t, app)

  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_UNKNOWN_EVENT', message: /no such event is declared \(declared: none\)/ })
  t.throws(() => app.svc.publish('cart', 'alice', {}), { code: 'FST_SVC_UNKNOWN_CHANNEL', message: /no such channel is declared \(declared: none\)/ })
  const stream = await subscribe(origin, '/svc/events')
  t.equal(stream.status, 200)
  t.match(stream.headers['content-type'], /^text\/event-stream/)
  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_UNKNOWN_EVENT', message: /declared: none/ }, 'the same error once a stream started the hub')
  const unknown = await fetch(`${origin}/svc/events?events=order.placed`)
  t.equal(unknown.status, 400, 'an event asked for by name is still checked against the declared ones')

  await app.close()
  await stream.end()
  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_CLOSED' }, 'after close(), as for any app')
})

t.test('an events stream that arrives while the app closes gets no stream, and close() does not wait for one', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  let preClosed: () => void = () => {}
  const afterPluginPreClose = new Promise<void>((resolve) => { preClosed = resolve })
  let closing: Promise<undefined> | undefined
  // The request reaches the handler, which starts the hub, only after the plugin's preClose has run.
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/svc/events')) return
    closing = app.close()
    await afterPluginPreClose
  })
  app.addHook('preClose', (done) => { preClosed(); done() })
  const origin = await listening(t, app)

  // Without keep-alive: a kept-alive socket would hold close() open until Fastify's keepAliveTimeout.
  const refused = await subscribe(origin, '/svc/events')
  t.equal(refused.status, 503)
  await refused.end()
  await closing
  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_CLOSED', message: /app.svc.emit\(\) was called after app.close\(\)/ }, 'no hub was started, and the app is closed')
  t.throws(() => app.svc.publish('cart', 'alice', {}), { code: 'FST_SVC_CLOSED' })
})
