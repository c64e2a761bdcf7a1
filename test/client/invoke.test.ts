import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { CommandError, createManifestClient, ManifestClientError } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'
import { closedPort, listening } from '../helpers/net.js'

/** A real server with the plugin and the routes given; counts the requests per URL. */
async function serve (t: Test, routes: (app: FastifyInstance) => void, options: Partial<SvcManifestOptions> = {}) {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, ...options })
  const seen: string[] = []
  app.addHook('onRequest', async (request) => { seen.push(`${request.method} ${request.url}`) })
  routes(app)
  const origin = await listening(t, app)
  return { app, seen, origin, url: `${origin}/.well-known/svc.json` }
}

async function rejection (promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return await promise.then(() => { throw new Error('expected a rejection') }, (error: Error & Record<string, unknown>) => error)
}

t.test('execute and pipeline against the shop, as a user calls them', async (t) => {
  const shop = await buildShop()
  const origin = await listening(t, shop)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })

  t.same(await client.execute('search', { q: 'kettle' }), [{ sku: 'kettle', name: 'Electric kettle', price: 24 }])
  t.ok(client.manifest, 'the manifest was fetched first, to find the endpoints')
  t.same(await client.execute('cart.add', { sku: 'mug', quantity: 2 }, { token: DEMO_TOKEN }), { items: [{ sku: 'mug', quantity: 2 }], total: 16 })

  const anonymous = await rejection(client.execute('cart.get'))
  t.type(anonymous, CommandError)
  t.match(anonymous, { name: 'CommandError', code: 'UNAUTHORIZED', status: 401, message: 'Missing bearer credential. Send "Authorization: Bearer <token>".', cause: 'FST_SVC_UNAUTHORIZED' })
  t.match(await rejection(client.execute('search', { q: 'tea', limit: 0 })), { code: 'INVALID_PARAMS', status: 400, cause: 'FST_ERR_VALIDATION', message: /limit must be >= 1/ })
  t.match(await rejection(client.execute('cart.checkout', {}, { token: DEMO_TOKEN })), { code: 'UNKNOWN_COMMAND', status: 404 })
  t.same(await client.execute('cart.get', undefined, { token: DEMO_TOKEN }), { items: [{ sku: 'mug', quantity: 2 }], total: 16 }, 'params default to none')

  const piped = await client.pipeline([
    { command: 'search', params: { q: 'green' }, as: 'found' },
    { command: 'cart.add', params: { sku: '$found[0].sku' } },
    { command: 'cart.remove', params: { sku: 'teapot' } },
    { command: 'cart.get' }
  ], { token: DEMO_TOKEN })
  t.equal(piped.ok, true)
  t.same(piped.results.map((result) => result.command), ['search', 'cart.add', 'cart.remove', 'cart.get'])
  t.same(piped.results[3], { command: 'cart.get', ok: true, result: { items: [{ sku: 'mug', quantity: 2 }, { sku: 'tea-green', quantity: 1 }], total: 20.5 } })

  const stopped = await client.pipeline([{ command: 'cart.get' }, { command: 'search', params: { q: 'a' } }])
  t.same(stopped, { ok: false, results: [{ command: 'cart.get', ok: false, error: { code: 'UNAUTHORIZED', message: 'Missing bearer credential. Send "Authorization: Bearer <token>".', status: 401, cause: 'FST_SVC_UNAUTHORIZED' } }] })
  const continued = await client.pipeline([{ command: 'cart.get' }, { command: 'search', params: { q: 'mug' } }], { continueOnError: true })
  t.equal(continued.results.length, 2, 'continueOnError runs every step')
  t.same(continued.results[1], { command: 'search', ok: true, result: [{ sku: 'mug', name: 'Tea mug', price: 8 }] })

  const refused = await rejection(client.pipeline([]))
  t.type(refused, CommandError)
  t.match(refused, { code: 'INVALID_REQUEST', status: 400, message: /1 to 16 steps/ })
})

t.test('a binary result is a Blob with its media type', async (t) => {
  const { url } = await serve(t, (app) => {
    app.get('/logo', { svc: { description: 'Logo' } }, async (request, reply) => reply.type('image/png').send(Buffer.from([137, 80, 78, 71])))
  })
  const logo = await createManifestClient({ url }).execute<Blob>('logo')
  t.type(logo, Blob)
  t.equal(logo.type, 'image/png')
  t.same([...new Uint8Array(await logo.arrayBuffer())], [137, 80, 78, 71])
})

t.test('the endpoints come from the manifest\'s Link header: basePath moves them', async (t) => {
  const { url, seen } = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  }, { basePath: '/agents/v1' })
  const client = createManifestClient({ url })
  t.equal(await client.execute('ping'), 'pong')
  t.same((await client.pipeline([{ command: 'ping' }])).results, [{ command: 'ping', ok: true, result: 'pong' }])
  t.same(seen.filter((line) => line.startsWith('POST')), ['POST /agents/v1/execute', 'POST /agents/v1/pipeline'])
  t.same(seen.filter((line) => line.includes('svc.json')), ['GET /.well-known/svc.json'], 'the manifest is fetched once while fresh')
})

t.test('invokeUrl names the endpoints explicitly; no manifest is needed', async (t) => {
  const { origin, seen } = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  }, { basePath: '/tools' })
  const client = createManifestClient({ url: 'https://elsewhere.example/.well-known/svc.json', invokeUrl: `${origin}/tools/` })
  t.equal(await client.execute('ping'), 'pong')
  t.same(seen, ['POST /tools/execute', 'GET /ping'], 'no manifest request (an app-wide hook sees the call and the route\'s own request)')
  t.throws(() => createManifestClient({ url: `${origin}/.well-known/svc.json`, invokeUrl: 'ftp://x.example' }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /invokeUrl must be an absolute http\(s\) URL/ })
})

t.test('a Link to another origin is ignored: calls and tokens stay on the manifest\'s origin', async (t) => {
  const real = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  })
  const body = Buffer.from(JSON.stringify(real.app.svc.manifest))
  const authorizations: unknown[] = []
  const links = [
    '<http://127.0.0.1:1/svc/execute>; rel="svc-execute", <//evil.example/p>; rel=svc-pipeline',
    '<http://[::1>; rel="svc-execute"',
    '<x>; title="no rel", </svc/pipeline>; rel="other"',
    'not a link at all'
  ]
  const mirror = Fastify()
  mirror.get('/:n/svc.json', async (request, reply) => reply.type('application/json').header('link', links[Number((request.params as { n: string }).n)]).send(body))
  mirror.post('/svc/:endpoint', async (request) => {
    authorizations.push(request.headers.authorization)
    return (request.params as { endpoint: string }).endpoint === 'execute' ? { ok: true, result: 'mirrored' } : { ok: true, results: [] }
  })
  const origin = await listening(t, mirror)
  for (const [index] of links.entries()) {
    const client = createManifestClient({ url: `${origin}/${index}/svc.json` })
    t.equal(await client.execute('ping', {}, { token: 'secret' }), 'mirrored', links[index])
    t.same(await client.pipeline([{ command: 'ping' }], { token: 'secret' }), { ok: true, results: [] })
  }
  t.same(authorizations, Array(8).fill('Bearer secret'), 'every call went to the manifest\'s own origin, /svc')
})

t.test('relation types are matched case-insensitively, in a list of several', async (t) => {
  const { origin } = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  }, { basePath: '/real' })
  const body = Buffer.from(JSON.stringify((await (await fetch(`${origin}/.well-known/svc.json`)).json())))
  const mirror = Fastify()
  mirror.get('/svc.json', async (request, reply) => reply.type('application/json').header('link', `<${origin}/real/execute>; rel="alternate SVC-Execute"`).send(body))
  const mirrorOrigin = await listening(t, mirror)
  // The link names another origin than the mirror's: ignored, so the mirror's own /svc/execute is called.
  await t.rejects(createManifestClient({ url: `${mirrorOrigin}/svc.json` }).execute('ping'), { code: 'SVC_CLIENT_INVALID_RESPONSE', status: 404 })
  const direct = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  t.equal(await direct.execute('ping'), 'pong')
})

t.test('what is not an envelope is SVC_CLIENT_INVALID_RESPONSE; a refused network SVC_CLIENT_NETWORK', async (t) => {
  const answers: Record<string, (reply: import('fastify').FastifyReply) => unknown> = {
    html: (reply) => reply.code(404).type('text/html').send('<h1>Not found</h1>'),
    nul: (reply) => reply.type('application/json').send('null'),
    noResult: (reply) => reply.send({ ok: true }),
    badError: (reply) => reply.code(400).send({ ok: false, error: { code: 'X' } }),
    redirect: (reply) => reply.code(307).header('location', '/elsewhere').send({ ok: true, result: 'would be followed' })
  }
  const { url } = await serve(t, (app) => {
    app.post('/svc/:endpoint', async (request, reply) => answers[request.headers['x-answer'] as string](reply))
  }, { invoke: false })
  for (const answer of Object.keys(answers)) {
    const client = createManifestClient({ url, fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, 'x-answer': answer } }) })
    const error = await rejection(client.execute('ping'))
    t.type(error, ManifestClientError, answer)
    t.equal(error.code, 'SVC_CLIENT_INVALID_RESPONSE', answer)
    t.match(error.message, /^POST http:\/\/127\.0\.0\.1:\d+\/svc\/execute answered \d+ without an envelope \{ ok, … \}: is the plugin's invoke option on\?$/)
  }
  const client = createManifestClient({ url, fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, 'x-answer': 'noResult' } }) })
  t.match(await rejection(client.pipeline([{ command: 'ping' }])), { code: 'SVC_CLIENT_INVALID_RESPONSE', status: 200 }, 'a pipeline answer needs results')
  t.match(await rejection(createManifestClient({ url, fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, 'x-answer': 'redirect' } }) }).execute('ping')),
    { status: 307 }, 'a redirect is not followed')

  const nobody = `http://127.0.0.1:${await closedPort()}`
  const closed = createManifestClient({ url: `${nobody}/.well-known/svc.json`, invokeUrl: `${nobody}/svc` })
  t.match(await rejection(closed.execute('ping')), { code: 'SVC_CLIENT_NETWORK', message: /^POST http:\/\/127\.0\.0\.1:\d+\/svc\/execute failed: .*ECONNREFUSED/ })
  const noManifest = createManifestClient({ url: `${nobody}/.well-known/svc.json` })
  t.match(await rejection(noManifest.execute('ping')), { code: 'SVC_CLIENT_NETWORK', message: /^GET / }, 'the manifest could not be fetched to find the endpoints')
})

t.test('a signal aborts a call', async (t) => {
  const { url } = await serve(t, (app) => {
    app.get('/slow', { svc: { description: 'Slow' } }, async () => await new Promise((resolve) => setTimeout(() => resolve('late'), 500)))
  })
  const client = createManifestClient({ url })
  await client.get()
  const error = await rejection(client.execute('slow', {}, { signal: AbortSignal.timeout(50) }))
  t.match(error, { code: 'SVC_CLIENT_ABORTED', message: /^POST http:\/\/127\.0\.0\.1:\d+\/svc\/execute was aborted by the caller's signal$/ })
  t.equal((error.cause as Error).name, 'TimeoutError', "the signal's reason")
})

t.test('the client timeout covers execute and pipeline; maxBodySize caps their answers', async (t) => {
  const { url } = await serve(t, (app) => {
    app.get('/slow', { svc: { description: 'Slow' } }, async () => await new Promise((resolve) => setTimeout(() => resolve('late'), 1000)))
    app.get('/big', { svc: { description: 'Big' } }, async () => 'x'.repeat(4096))
  })
  const client = createManifestClient({ url, timeout: 300, maxBodySize: 2048 })
  await client.get()
  t.match(await rejection(client.execute('slow')), { code: 'SVC_CLIENT_TIMEOUT', message: /\/svc\/execute did not complete within 300 ms/ })
  t.match(await rejection(client.pipeline([{ command: 'slow' }])), { code: 'SVC_CLIENT_TIMEOUT', message: /\/svc\/pipeline did not complete/ })
  t.match(await rejection(client.execute('big')), { code: 'SVC_CLIENT_BODY_TOO_LARGE' })
})

t.test('the Link header is read again from every 200 and 304', async (t) => {
  const { url } = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  }, { maxAge: 0, basePath: '/moved' })
  const client = createManifestClient({ url })
  t.equal((await client.get()).status, 'fetched')
  t.equal((await client.get()).status, 'revalidated', 'a 304')
  t.equal(await client.execute('ping'), 'pong', 'the endpoints of the 304\'s Link header')

  const off = await serve(t, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  }, { maxAge: 0, invoke: false })
  const offClient = createManifestClient({ url: off.url })
  await offClient.get()
  await offClient.get()
  const error = await rejection(offClient.execute('ping'))
  t.match(error, { code: 'SVC_CLIENT_INVALID_RESPONSE', status: 404 }, 'no Link: /svc/execute, which is off')
  t.same(off.seen.filter((line) => line.startsWith('POST')), ['POST /svc/execute'])
})
