import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { createManifestClient, ManifestClientError, type ChannelState, type SvcEvent } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'
import { freePort } from '../helpers/redis.js'
import { tokenAuth } from '../helpers/auth.js'

const fast = { reconnect: { initialDelay: 20, maxDelay: 100 } }

/**
 * After a fetch of a stream is aborted, Node's fetch (undici) opens a spare connection that sends no
 * request; Node's server does not count it as idle, so a plain close() would wait for the client to drop
 * it (4 s). The test servers close every connection instead.
 */
const serverOptions = { forceCloseConnections: true }

async function shop (t: Test, options: Partial<SvcManifestOptions> = {}, port = 0): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify(serverOptions)
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    auth: tokenAuth,
    events: { 'cart.updated': { description: 'Cart changed' }, news: { description: 'News' } },
    channels: { cart: { description: 'Cart state' } },
    ...options
  })
  await app.listen({ host: '127.0.0.1', port })
  t.teardown(() => app.close())
  const address = app.server.address() as { port: number }
  return { app, url: `http://127.0.0.1:${address.port}/.well-known/svc.json` }
}

interface Collector<T> {
  items: T[]
  /** A probe event arrived: the subscription is in place on the server. */
  primed: boolean
  push: (item: T) => void
  count: (n: number) => Promise<T[]>
}

/** Collects what a subscription delivers (probes aside), and lets a test wait for it. */
function collector<T> (): Collector<T> {
  const items: T[] = []
  let wake = () => {}
  const sink: Collector<T> = {
    items,
    primed: false,
    push: (item) => {
      if ((item as { data?: { probe?: unknown } }).data?.probe === true) sink.primed = true
      else items.push(item)
      wake()
    },
    async count (n) {
      const deadline = Date.now() + 3000
      while (items.length < n) {
        if (Date.now() > deadline) throw new Error(`timed out at ${items.length} of ${n}: ${JSON.stringify(items)}`)
        await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, 50) })
      }
      return items
    }
  }
  return sink
}

/** Emits probe events until every sink got one: from then on their subscriptions receive what is emitted. */
async function primed (app: FastifyInstance, ...sinks: Array<Collector<SvcEvent>>): Promise<void> {
  const deadline = Date.now() + 3000
  while (!sinks.every((sink) => sink.primed)) {
    if (Date.now() > deadline) throw new Error('the subscriptions never opened')
    app.svc.emit('news', { probe: true })
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('subscribe: the events of the service, as the subscriber\'s credential allows, until aborted', async (t) => {
  const { app, url } = await shop(t)
  const client = createManifestClient({ url })
  const controller = new AbortController()
  const alice = collector<SvcEvent>()
  const newsOnly = collector<SvcEvent>()
  const subscription = client.subscribe({ token: 'alice-token', signal: controller.signal }, alice.push)
  const newsSubscription = client.subscribe({ token: 'bob-token', events: ['news'], signal: controller.signal }, newsOnly.push)
  await primed(app, alice, newsOnly)
  app.svc.emit('cart.updated', { items: ['mug'] }, { to: 'alice' })
  app.svc.emit('cart.updated', { items: ['tea'] }, { to: 'bob' })
  app.svc.emit('news', { headline: 'hi' })
  t.same((await alice.count(2)).map(({ event, data }) => ({ event, data })), [
    { event: 'cart.updated', data: { items: ['mug'] } },
    { event: 'news', data: { headline: 'hi' } }
  ])
  t.ok(Number(alice.items[1].id) > Number(alice.items[0].id), 'ids grow')
  t.same((await newsOnly.count(1)).map(({ event, data }) => ({ event, data })), [{ event: 'news', data: { headline: 'hi' } }])
  controller.abort()
  await t.resolves(subscription, 'resolves when aborted')
  await t.resolves(newsSubscription)
})

t.test('watch: the latest state first, then each newer one', async (t) => {
  const { app, url } = await shop(t)
  await app.svc.publish('cart', 'alice', { items: ['mug'] })
  const client = createManifestClient({ url })
  const controller = new AbortController()
  const states = collector<ChannelState>()
  const watching = client.watch('cart', 'alice', { token: 'alice-token', signal: controller.signal }, states.push)
  await states.count(1)
  await app.svc.publish('cart', 'alice', { items: ['mug', 'tea'] })
  t.same(await states.count(2), [{ version: 1, state: { items: ['mug'] } }, { version: 2, state: { items: ['mug', 'tea'] } }])
  controller.abort()
  await watching
  await t.rejects(client.watch('cart', 'bob', { token: 'alice-token' }, () => {}), {
    code: 'SVC_CLIENT_HTTP_STATUS',
    status: 403,
    message: /\/svc\/channels\/cart\/bob answered 403: Not allowed to watch channel "cart" key "bob"./
  })
})

t.test('the endpoints come from the manifest\'s Link header; without one, /svc', async (t) => {
  const { app, url } = await shop(t, { basePath: '/realtime', auth: undefined })
  const client = createManifestClient({ url })
  const controller = new AbortController()
  const events = collector<SvcEvent>()
  const subscription = client.subscribe({ signal: controller.signal }, events.push)
  const states = collector<ChannelState>()
  const watching = client.watch('cart', 'a/b', { signal: controller.signal }, states.push)
  await states.count(1)
  await primed(app, events)
  app.svc.emit('news', {})
  await app.svc.publish('cart', 'a/b', 'x')
  t.equal((await events.count(1))[0].event, 'news')
  t.same((await states.count(2))[1], { version: 1, state: 'x' })
  controller.abort()
  await Promise.all([subscription, watching])

  // A manifest served by something else, without a Link header: the default place.
  const mirror = Fastify(serverOptions)
  mirror.get('/svc.json', async () => app.svc.manifest)
  mirror.get('/svc/events', async (request, reply) => reply.code(418).send({ message: 'the fallback was asked' }))
  await mirror.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => mirror.close())
  const mirrored = createManifestClient({ url: `http://127.0.0.1:${(mirror.server.address() as { port: number }).port}/svc.json` })
  await t.rejects(mirrored.subscribe({}, () => {}), { status: 418, message: /\/svc\/events answered 418: the fallback was asked/ })
})

t.test('the first connection must succeed: refusals and network errors reject', async (t) => {
  const { url } = await shop(t)
  const client = createManifestClient({ url })
  await t.rejects(client.subscribe({}, () => {}), { code: 'SVC_CLIENT_HTTP_STATUS', status: 401, message: /answered 401: Missing bearer credential/ })
  await t.rejects(client.subscribe({ token: 'nope' }, () => {}), { status: 401, message: /The bearer token was refused/ })
  const error = await client.subscribe({ token: 'alice-token', events: ['gone'] }, () => {}).catch((error: unknown) => error)
  t.ok(error instanceof ManifestClientError)
  t.match(error, { status: 400, message: /events\?events=gone answered 400: Unknown event "gone"/ })

  // A Link to another origin is ignored: the token goes nowhere but where the manifest came from.
  const port = await freePort()
  const elsewhere = Fastify(serverOptions)
  const manifest = await (await fetch(url)).json()
  elsewhere.get('/svc.json', async (request, reply) => reply.header('link', `<http://127.0.0.1:${port}/events>; rel="svc-events"`).send(manifest))
  await elsewhere.listen({ host: '127.0.0.1', port: 0 })
  const pointed = createManifestClient({ url: `http://127.0.0.1:${(elsewhere.server.address() as { port: number }).port}/svc.json` })
  await t.rejects(pointed.subscribe({ token: 'alice-token' }, () => {}), { status: 404, message: /127.0.0.1:\d+\/svc\/events answered 404: Route GET:\/svc\/events not found/ })

  // The manifest was read, then the service went away: the first connection fails.
  await elsewhere.close()
  await t.rejects(pointed.subscribe({}, () => {}), { code: 'SVC_CLIENT_NETWORK', message: /\/svc\/events failed: (other side closed|.*ECONNREFUSED)/ })
})

t.test('a lost connection is reopened with Last-Event-ID, and ids go on', async (t) => {
  const port = await freePort()
  const first = await shop(t, { auth: undefined }, port)
  const client = createManifestClient({ url: first.url })
  const controller = new AbortController()
  const events = collector<SvcEvent>()
  const subscription = client.subscribe({ signal: controller.signal, ...fast }, events.push)
  await primed(first.app, events)
  first.app.svc.emit('news', { n: 1 })
  await events.count(1)
  await first.app.close()

  const second = await shop(t, { auth: undefined }, port)
  events.primed = false
  await primed(second.app, events)
  second.app.svc.emit('news', { n: 2 })
  t.same((await events.count(2)).map((event) => event.data), [{ n: 1 }, { n: 2 }], 'the same subscription, across the restart')
  t.ok(Number(events.items[1].id) > Number(events.items[0].id), 'ids go on from the Last-Event-ID')
  controller.abort()
  await subscription
})

t.test('scripted servers: 5xx retried, 4xx after a reconnection rejects, idle connections are reopened', async (t) => {
  const script = await scripted(t, [
    (response) => stream(response, 'id: 7\nevent: news\ndata: {"n":1}\n\n', true),
    (response) => response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"closing"}'),
    (response) => stream(response, ''), // opens, then stays silent: reopened after idleTimeout
    (response) => stream(response, 'id: 8\nevent: news\ndata: {"n":2}\n\n', true),
    (response) => response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Token expired"}')
  ])
  const client = createManifestClient({ url: script.url })
  const events = collector<SvcEvent>()
  await t.rejects(client.subscribe({ ...fast, idleTimeout: 200 }, events.push), { code: 'SVC_CLIENT_HTTP_STATUS', status: 401, message: /answered 401: Token expired/ })
  t.same(events.items.map((event) => event.data), [{ n: 1 }, { n: 2 }])
  t.same(script.lastEventIds, [undefined, '7', '7', '7', '8'], 'Last-Event-ID sent on every reconnection')
})

t.test('scripted servers: what is not an event stream', async (t) => {
  const cases: Array<[(response: ServerResponse) => void, RegExp, string]> = [
    [(response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('hello'), /answered 200 with content-type text\/plain, not text\/event-stream/, 'SVC_CLIENT_NOT_A_STREAM'],
    [(response) => response.writeHead(404).end('nope'), /answered 404$/, 'SVC_CLIENT_HTTP_STATUS'],
    [(response) => response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"x"}'), /answered 500$/, 'SVC_CLIENT_HTTP_STATUS'],
    [(response) => stream(response, 'event: news\ndata: not json\n\n'), /a news frame carries data that is not JSON/, 'SVC_CLIENT_INVALID_JSON']
  ]
  for (const [handler, message, code] of cases) {
    const script = await scripted(t, [handler])
    await t.rejects(createManifestClient({ url: script.url }).subscribe({}, () => {}), { code, message })
  }
})

t.test('a server that never answers: the first connection gives up after the client\'s timeout', async (t) => {
  const script = await scripted(t, [() => {}])
  await t.rejects(createManifestClient({ url: script.url, timeout: 200 }).subscribe({}, () => {}), {
    code: 'SVC_CLIENT_TIMEOUT',
    message: /\/svc\/events did not complete within 200 ms \(timeout\); gave up/
  })
})

t.test('an error thrown by the handler ends the subscription with it', async (t) => {
  const script = await scripted(t, [(response) => stream(response, 'id: 1\nevent: news\ndata: 1\n\n')])
  await t.rejects(createManifestClient({ url: script.url }).subscribe({}, () => { throw new Error('handler failed') }), { message: 'handler failed' })
})

t.test('aborting while waiting to reconnect resolves at once', async (t) => {
  const script = await scripted(t, [(response) => stream(response, 'id: 1\nevent: news\ndata: 1\n\n', true)])
  const controller = new AbortController()
  const subscription = createManifestClient({ url: script.url }).subscribe({ signal: controller.signal, reconnect: { initialDelay: 60_000 } }, () => {
    setTimeout(() => controller.abort(), 20)
  })
  const started = Date.now()
  await subscription
  t.ok(Date.now() - started < 1000)
})

function stream (response: ServerResponse, frames: string, end = false): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.write(frames)
  if (end) response.end()
}

/**
 * A server whose manifest is the shop's and whose events endpoint answers each connection with the next
 * handler of `handlers`; it records the Last-Event-ID of each.
 */
async function scripted (t: Test, handlers: Array<(response: ServerResponse) => void>): Promise<{ url: string, lastEventIds: Array<string | undefined> }> {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, events: { news: { description: 'News' } } })
  await app.ready()
  const manifest = JSON.stringify(app.svc.manifest)
  await app.close()
  const lastEventIds: Array<string | undefined> = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/.well-known/svc.json') return response.writeHead(200, { 'content-type': 'application/json' }).end(manifest)
    lastEventIds.push(request.headers['last-event-id'] as string | undefined)
    const handler = handlers.shift()
    if (handler === undefined) return response.writeHead(410).end()
    handler(response)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/svc.json`, lastEventIds }
}
