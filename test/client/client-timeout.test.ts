// Defect: a server that accepts the connection and never answers hung `client.get()` and
// `svc-manifest fetch` forever. Now one time limit (default 10 s, option `timeout`) covers the request and
// its body, and a caller's `signal` aborts it.
import t from 'tap'
import { createManifestClient, ManifestClientError } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli, oneLine, spawned } from '../helpers/cli.js'

t.test('a server that never answers: get() rejects with SVC_CLIENT_TIMEOUT once the timeout passes', async (t) => {
  const { origin } = await rawServer(t, () => {})
  const client = createManifestClient({ url: `${origin}/svc.json`, timeout: 300 })
  const started = Date.now()
  const error = await client.get().catch((error) => error)
  const elapsed = Date.now() - started
  t.ok(error instanceof ManifestClientError)
  t.equal(error.code, 'SVC_CLIENT_TIMEOUT')
  t.equal(error.message, `GET ${origin}/svc.json did not complete within 300 ms (timeout); gave up`)
  t.ok(elapsed >= 290 && elapsed < 3000, `gave up after ${elapsed} ms`)
  t.equal(client.manifest, undefined)
})

t.test('the time limit covers the body: headers then silence is a timeout too', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write('{"svc": "1.0", ')
  })
  const error = await createManifestClient({ url: `${origin}/svc.json`, timeout: 1500 }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_TIMEOUT')
  t.match(error.message, 'did not complete within 1.5 s')
})

t.test('a slow but complete answer within the limit is fine', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    setTimeout(() => sendJson(response, manifestOf()), 100)
  })
  t.equal((await createManifestClient({ url: `${origin}/svc.json`, timeout: 2000 }).get()).status, 'fetched')
})

t.test('signal: aborting rejects with SVC_CLIENT_ABORTED and the reason as cause', async (t) => {
  const { origin, requests } = await rawServer(t, () => {})
  const client = createManifestClient({ url: `${origin}/svc.json` })
  const controller = new AbortController()
  const pending = client.get({ signal: controller.signal })
  setTimeout(() => controller.abort(new Error('shutting down')), 50)
  const error = await pending.catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_ABORTED')
  t.equal(error.message, `GET ${origin}/svc.json was aborted by the caller's signal`)
  t.equal(error.cause.message, 'shutting down')

  const before = requests.length
  const already = await client.get({ signal: AbortSignal.abort() }).catch((error) => error)
  t.equal(already.code, 'SVC_CLIENT_ABORTED', 'an aborted signal rejects at once')
  t.equal(already.cause.name, 'AbortError')
  t.equal(requests.length, before, 'without sending a request')

  const late = await client.get({ signal: AbortSignal.timeout(100) }).catch((error) => error)
  t.equal(late.code, 'SVC_CLIENT_ABORTED', "the caller's own timeout signal counts as an abort")
  t.equal(late.cause.name, 'TimeoutError')
})

t.test('a signal aborted after get() settled changes nothing', async (t) => {
  const { origin } = await rawServer(t, (request, response) => sendJson(response, manifestOf()))
  const controller = new AbortController()
  const client = createManifestClient({ url: `${origin}/svc.json` })
  t.equal((await client.get({ signal: controller.signal })).status, 'fetched')
  controller.abort()
  t.equal((await client.get()).status, 'revalidated', 'no max-age: it asks again, and gets its answer')
})

t.test('timeout and maxBodySize are checked when the client is created', async (t) => {
  const invalid = (options: Record<string, unknown>) => {
    try {
      createManifestClient({ url: 'https://shop.example/svc.json', ...options })
    } catch (error) {
      return error as ManifestClientError
    }
  }
  for (const timeout of [0, -1, Infinity, NaN, '10', 2 ** 31]) {
    t.match(invalid({ timeout }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /^timeout must be a number of milliseconds above 0 and at most 2147483647; got / }, String(timeout))
  }
  for (const maxBodySize of [0, 1.5, -5, '8MiB', Infinity]) {
    t.match(invalid({ maxBodySize }), { code: 'SVC_CLIENT_INVALID_OPTION', message: /^maxBodySize must be a whole number of bytes above 0; got / }, String(maxBodySize))
  }
  t.equal(invalid({ timeout: 1, maxBodySize: 1 }), undefined)
})

t.test('svc-manifest fetch --timeout: exit 2 with one line', async (t) => {
  const { origin } = await rawServer(t, () => {})
  const run = await cli('fetch', `${origin}/svc.json`, '--timeout', '0.25')
  t.equal(run.code, 2)
  t.equal(run.stdout, '')
  oneLine(t, run.stderr, `svc-manifest: GET ${origin}/svc.json did not complete within 250 ms (timeout); gave up`)

  const check = await cli('check', `${origin}/svc.json`, '--timeout', '.2')
  t.equal(check.code, 2)
  oneLine(t, check.stderr, 'within 200 ms')
})

t.test('svc-manifest call --timeout: the manifest, then the command, each within the limit', async (t) => {
  const manifest = manifestOf({ slow: { description: 'Never answers' } })
  const { origin } = await rawServer(t, (request, response) => {
    if (request.url === '/.well-known/svc.json') sendJson(response, manifest)
  })
  const run = await cli('call', origin, 'slow', '--timeout', '0.3')
  t.equal(run.code, 2)
  oneLine(t, run.stderr, `svc-manifest: POST ${origin}/svc/execute did not complete within 300 ms (timeout); gave up`)
})

t.test('--timeout takes seconds: anything else is a usage error', async (t) => {
  for (const value of ['0', 'abc', '-1', '1e3', '0x10', '0.0001', '3000000', '']) {
    const run = await cli('fetch', 'http://127.0.0.1:9/svc.json', `--timeout=${value}`)
    t.equal(run.code, 2, value)
    oneLine(t, run.stderr, `--timeout takes a number of seconds from 0.001 to 2147483; got "${value}". Run svc-manifest fetch --help.`)
  }
})

t.test('svc-manifest fetch against a silent server ends by itself after the default 10 s', async (t) => {
  const { origin } = await rawServer(t, () => {})
  const run = await spawned(['fetch', `${origin}/svc.json`], 25_000)
  t.equal(run.killed, false, 'the process exited on its own')
  t.equal(run.code, 2)
  t.equal(run.stderr, `svc-manifest: GET ${origin}/svc.json did not complete within 10 s (timeout); gave up\n`)
})
