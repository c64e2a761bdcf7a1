import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { subscribe } from '../helpers/sse.js'

// An app without events starts its realtime hub for the first events stream. When the app begins to close
// while that hub is still loading, the hub must come up refusing streams: a stream opened on it then would
// hold app.close() open for good (the server waits for open responses).
// This file must run in a process that has not loaded the realtime code yet, so that loading it takes a while.

t.test('close() begins while the first events stream loads the hub: the stream is refused and close() finishes', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  let closing: Promise<undefined> | undefined
  app.addHook('preHandler', (request, reply, done) => {
    // done() runs the handler up to its wait for the hub; close() then starts before the hub is loaded.
    done()
    if (request.url.startsWith('/svc/events')) closing = app.close()
  })
  const origin = await listening(t, app)

  const refused = await subscribe(origin, '/svc/events')
  t.equal(refused.status, 503)
  await refused.end()
  await closing
  t.throws(() => app.svc.emit('order.placed', {}), { code: 'FST_SVC_CLOSED', message: /app.svc.emit\(\) was called after app.close\(\)/ })
})
