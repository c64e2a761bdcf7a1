import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { createManifestClient, ManifestClientError, type Change } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'

type Routes = (app: FastifyInstance) => void

interface SeenRequest {
  url: string
  ifNoneMatch?: string
  status?: number
}

/** A real server on 127.0.0.1 with the plugin; every request it receives is recorded. */
async function startServer (t: Test, routes: Routes, options: Partial<SvcManifestOptions> = {}, port = 0) {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...options })
  const seen: SeenRequest[] = []
  app.addHook('onRequest', async (request) => {
    seen.push({ url: request.url, ifNoneMatch: request.headers['if-none-match'] })
  })
  app.addHook('onResponse', async (request, reply) => {
    seen.findLast((entry) => entry.url === request.url && entry.status === undefined)!.status = reply.statusCode
  })
  routes(app)
  await app.listen({ host: '127.0.0.1', port })
  t.teardown(() => app.close())
  const { port: bound } = app.server.address() as { port: number }
  const origin = `http://127.0.0.1:${bound}`
  return { app, seen, port: bound, origin, url: `${origin}/.well-known/svc.json` }
}

/** How many requests ended with each status. */
function countByStatus (seen: SeenRequest[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const { status } of seen) counts[status!] = (counts[status!] ?? 0) + 1
  return counts
}

const shopV1: Routes = (app) => {
  app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }), hints: { idempotent: true } } }, async () => [])
  app.delete('/cart', { svc: { name: 'cart.clear', description: 'Empty the cart' } }, async () => ({}))
}

/** The same service after a release: cart.clear removed, search needs a locale, cart.add added. */
const shopV2: Routes = (app) => {
  app.get('/search', {
    svc: { description: 'Search', params: Type.Object({ q: Type.String(), locale: Type.String() }), hints: { idempotent: true } }
  }, async () => [])
  app.post('/cart/items', { svc: { name: 'cart.add', description: 'Add an item', auth: undefined } }, async () => ({}))
}

/** A clock the test moves by hand. */
function manualClock (start = Date.parse('2025-01-01T00:00:00.000Z')) {
  const clock = { ms: start, now: () => clock.ms }
  return clock
}

function summary (changes: Change[]): string[] {
  return changes.map((change) => `${change.kind} ${change.name}`)
}

t.test('fetched, then fresh without a request until max-age, then revalidated with a 304', async (t) => {
  const { seen, url, app } = await startServer(t, shopV1)
  const clock = manualClock()
  const client = createManifestClient({ url, now: clock.now })
  t.equal(client.manifest, undefined)

  const first = await client.get()
  t.equal(first.status, 'fetched')
  t.equal(first.manifest.checksum, app.svc.checksum)
  t.same(Object.keys(first.manifest.commands), ['cart.clear', 'search'])
  t.same(countByStatus(seen), { 200: 1 })
  t.equal(seen[0].ifNoneMatch, undefined)

  clock.ms += 299_999
  const fresh = await client.get()
  t.equal(fresh.status, 'fresh')
  t.equal(fresh.manifest, first.manifest)
  t.equal(seen.length, 1, 'no request while fresh')

  clock.ms += 1
  const revalidated = await client.get()
  t.equal(revalidated.status, 'revalidated')
  t.equal(revalidated.manifest, first.manifest)
  t.same(countByStatus(seen), { 200: 1, 304: 1 })
  t.equal(seen[1].ifNoneMatch, `"${app.svc.checksum}"`)

  clock.ms += 299_999
  t.equal((await client.get()).status, 'fresh', 'a 304 starts a new max-age')
  t.equal(seen.length, 2)
  t.equal(client.manifest, first.manifest)
})

t.test('the freshness follows the server\'s maxAge', async (t) => {
  const { seen, url } = await startServer(t, shopV1, { maxAge: 10 })
  const clock = manualClock()
  const client = createManifestClient({ url, now: clock.now })
  await client.get()
  clock.ms += 9_999
  t.equal((await client.get()).status, 'fresh')
  clock.ms += 1
  t.equal((await client.get()).status, 'revalidated')
  t.same(countByStatus(seen), { 200: 1, 304: 1 })
})

t.test('maxAge 0: every get asks the server', async (t) => {
  const { seen, url } = await startServer(t, shopV1, { maxAge: 0 })
  const client = createManifestClient({ url: new URL(url), now: () => 0 })
  t.same([(await client.get()).status, (await client.get()).status, (await client.get()).status], ['fetched', 'revalidated', 'revalidated'])
  t.same(countByStatus(seen), { 200: 1, 304: 2 })
})

t.test('the real clock by default: a second get within max-age is fresh', async (t) => {
  const { seen, url } = await startServer(t, shopV1)
  const client = createManifestClient({ url })
  t.equal((await client.get()).status, 'fetched')
  t.equal((await client.get()).status, 'fresh')
  t.equal(seen.length, 1)
})

t.test('a restart with changed commands gives changed, with the drift from the cached manifest', async (t) => {
  const before = await startServer(t, shopV1)
  const clock = manualClock()
  const client = createManifestClient({ url: before.url, now: clock.now })
  const first = await client.get()
  await before.app.close()

  const after = await startServer(t, shopV2, { version: '2.4.0' }, before.port)
  clock.ms += 300_000
  const result = await client.get()
  t.equal(result.status, 'changed')
  t.equal(result.manifest.checksum, after.app.svc.checksum)
  t.not(result.manifest.checksum, first.manifest.checksum)
  t.equal(after.seen[0].ifNoneMatch, `"${first.manifest.checksum}"`, 'the cached checksum was sent')
  t.same(countByStatus(after.seen), { 200: 1 })
  t.same(summary(result.drift!.breaking), ['command.removed cart.clear', 'param.added search(locale)'])
  t.same(summary(result.drift!.nonBreaking), ['service.changed version', 'command.added cart.add'])
  t.equal(client.manifest, result.manifest, 'the new manifest is cached')

  clock.ms += 300_000
  const again = await client.get()
  t.equal(again.status, 'revalidated')
  t.equal(again.drift, undefined)
  t.same(countByStatus(after.seen), { 200: 1, 304: 1 })
})

t.test('a body whose checksum does not match its commands is refused, and the cached copy kept', async (t) => {
  const state = { tampered: false }
  const { seen, origin, app } = await startServer(t, (app) => {
    // A mirror that serves the manifest with cache headers but ignores If-None-Match.
    app.get('/mirror/svc.json', async (request, reply) => {
      reply.header('cache-control', 'public, max-age=60')
      const manifest = app.svc.manifest
      if (!state.tampered) return manifest
      return { ...manifest, commands: { ...manifest.commands, 'admin.drop': { description: 'Injected' } } }
    })
    shopV1(app)
  })
  const clock = manualClock()
  const client = createManifestClient({ url: `${origin}/mirror/svc.json`, now: clock.now })
  const first = await client.get()
  t.equal(first.status, 'fetched')

  state.tampered = true
  clock.ms += 60_000
  const refused = await client.get().catch((error) => error)
  t.ok(refused instanceof ManifestClientError)
  t.equal(refused.code, 'SVC_CLIENT_CHECKSUM_MISMATCH')
  t.match(refused.message, 'checksum does not match its commands; refused')
  t.match(refused.errors, [/^\/checksum: [0-9a-f]{64} does not match the commands, whose checksum is [0-9a-f]{64}, or [0-9a-f]{64} as Surf computes it$/])
  t.equal(client.manifest, first.manifest, 'the verified copy stays cached')
  t.notOk('admin.drop' in client.manifest!.commands)

  state.tampered = false
  const healed = await client.get()
  t.equal(healed.status, 'revalidated', 'a 200 with the cached checksum counts as revalidated')
  t.same(healed.manifest.commands, app.svc.manifest.commands)
  t.same(countByStatus(seen), { 200: 3 })
  t.equal(seen[2].ifNoneMatch, `"${first.manifest.checksum}"`, 'the refused body did not replace the cached checksum')
})

t.test('errors surface with stable codes, never as a stale manifest', async (t) => {
  const { origin, url, app } = await startServer(t, (app) => {
    app.get('/broken.json', async (request, reply) => reply.code(500).send({ error: 'boom' }))
    app.get('/text.json', async (request, reply) => reply.type('application/json').send('{ not json'))
    app.get('/other.json', async () => ({ hello: 'world' }))
    app.get('/always-304.json', async (request, reply) => reply.code(304).send())
    shopV1(app)
  })
  const reject = async (clientUrl: string) => await createManifestClient({ url: clientUrl }).get().catch((error) => error)

  const status = await reject(`${origin}/broken.json`)
  t.equal(status.code, 'SVC_CLIENT_HTTP_STATUS')
  t.equal(status.status, 500)
  t.match(status.message, 'answered 500, expected 200 or 304')
  t.equal((await reject(`${origin}/missing.json`)).status, 404)
  t.equal((await reject(`${origin}/always-304.json`)).status, 304, 'a 304 without a cached copy is an error')

  const json = await reject(`${origin}/text.json`)
  t.equal(json.code, 'SVC_CLIENT_INVALID_JSON')
  t.ok(json.cause instanceof SyntaxError)

  const invalid = await reject(`${origin}/other.json`)
  t.equal(invalid.code, 'SVC_CLIENT_INVALID_MANIFEST')
  t.match(invalid.errors, [/^\/svc: expected a known layout/])

  const clock = manualClock()
  const client = createManifestClient({ url, now: clock.now })
  await client.get()
  await app.close()
  clock.ms += 300_000
  const network = await client.get().catch((error) => error)
  t.equal(network.code, 'SVC_CLIENT_NETWORK')
  t.match(network.message, `GET ${url} failed: `, 'a kept-alive socket may fail first ("other side closed")')
  t.match((await client.get().catch((error) => error)).message, `GET ${url} failed: connect ECONNREFUSED`)
  t.ok(client.manifest, 'the last verified copy is still there to inspect, but get() did not return it')
})

t.test('a fetch of your own: its failures are network errors', async (t) => {
  const failing = createManifestClient({ url: 'https://shop.example/.well-known/svc.json', fetch: async () => { throw new Error('proxy refused') } })
  const error = await failing.get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_NETWORK')
  t.equal(error.message, 'GET https://shop.example/.well-known/svc.json failed: proxy refused')

  const odd = createManifestClient({ url: 'https://shop.example/.well-known/svc.json', fetch: () => Promise.reject(new Error('offline', { cause: { message: 'EAI_AGAIN' } })) })
  t.match((await odd.get().catch((error) => error)).message, 'failed: EAI_AGAIN')

  // eslint-disable-next-line prefer-promise-reject-errors
  const bare = createManifestClient({ url: 'https://shop.example/.well-known/svc.json', fetch: () => Promise.reject('offline') })
  t.match((await bare.get().catch((error) => error)).message, 'failed: offline')
})

t.test('Cache-Control decides freshness: no-cache, no max-age, Age', async (t) => {
  const { origin, seen } = await startServer(t, (app) => {
    app.get('/cc.json', async (request, reply) => {
      const { cc, age } = request.query as { cc?: string, age?: string }
      if (cc !== undefined) reply.header('cache-control', cc)
      if (age !== undefined) reply.header('age', age)
      return app.svc.manifest
    })
  })
  const statuses = async (query: string, advances: number[]) => {
    const clock = manualClock()
    const client = createManifestClient({ url: `${origin}/cc.json?${query}`, now: clock.now })
    const out = [(await client.get()).status]
    for (const ms of advances) {
      clock.ms += ms
      out.push((await client.get()).status)
    }
    return out
  }
  t.same(await statuses('cc=public,%20max-age=60', [59_999]), ['fetched', 'fresh'])
  t.same(await statuses('cc=no-cache,%20max-age=60', [0]), ['fetched', 'revalidated'])
  t.same(await statuses('cc=no-store', [0]), ['fetched', 'revalidated'])
  t.same(await statuses('', [0]), ['fetched', 'revalidated'], 'no Cache-Control: always revalidate')
  t.same(await statuses('cc=public', [0]), ['fetched', 'revalidated'], 'no max-age: always revalidate')
  t.same(await statuses('cc=max-age=60&age=50', [9_999, 1]), ['fetched', 'fresh', 'revalidated'], 'Age counts against max-age')
  t.same(await statuses('cc=max-age=60&age=soon', [59_999]), ['fetched', 'fresh'], 'an unreadable Age is ignored')
  t.equal(seen.length, 12)
})

t.test('invalid options throw SVC_CLIENT_INVALID_OPTION at once', async (t) => {
  const invalid = (options: unknown) => {
    try {
      createManifestClient(options as never)
    } catch (error) {
      return error as ManifestClientError
    }
  }
  t.match(invalid(undefined), { code: 'SVC_CLIENT_INVALID_OPTION', message: /url must be an absolute http\(s\) URL of a manifest; got nothing/ })
  t.match(invalid({ url: 'shop.example/svc.json' }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /got "shop\.example\/svc\.json"/ })
  t.match(invalid({ url: 'ftp://shop.example/svc.json' }), { code: 'SVC_CLIENT_INVALID_OPTION' })
  t.match(invalid({ url: 'https://shop.example/svc.json', fetch: 'yes' }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /fetch must be a function/ })
  t.match(invalid({ url: 'https://shop.example/svc.json', now: 5 }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /now must be a function/ })
  t.equal(createManifestClient({ url: new URL('https://shop.example/.well-known/svc.json') }).url, 'https://shop.example/.well-known/svc.json')
  t.equal(invalid({ url: 'x' })!.name, 'ManifestClientError')
})
