// Defect: the client followed a redirect to another origin silently. It invokes commands on the origin
// it fetched the manifest from (DESIGN §8), so a redirect must not move it: same-origin redirects are
// followed, any other is refused with SVC_CLIENT_REDIRECT before a request reaches the other origin.
import t from 'tap'
import { createManifestClient } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli, oneLine } from '../helpers/cli.js'

t.test('a redirect to another origin is refused, and nothing is asked of that origin', async (t) => {
  const elsewhere = await rawServer(t, (request, response) => sendJson(response, manifestOf()))
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(302, { location: `${elsewhere.origin}/.well-known/svc.json` }).end()
  })
  const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_REDIRECT')
  t.equal(error.message, `GET ${origin}/svc.json redirected to ${elsewhere.origin}/.well-known/svc.json, another origin; refused: the client only talks to ${origin}`)
  t.same(elsewhere.requests, [])
})

t.test('another scheme or port is another origin too', async (t) => {
  for (const location of ['https://127.0.0.1/svc.json', 'http://localhost/svc.json', '//example.com/svc.json']) {
    const { origin } = await rawServer(t, (request, response) => { response.writeHead(301, { location }).end() })
    const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
    t.equal(error.code, 'SVC_CLIENT_REDIRECT', location)
  }
})

t.test('same-origin redirects are followed (relative or absolute), up to five', async (t) => {
  const { origin, requests } = await rawServer(t, (request, response) => {
    const hops = Number(request.url!.slice(1))
    if (request.url === '/.well-known/svc.json') sendJson(response, manifestOf())
    else if (request.url === '/old.json') response.writeHead(308, { location: '/1' }).end()
    else if (hops < 5) response.writeHead(307, { location: `${origin}/${hops + 1}` }).end()
    else if (hops === 5) response.writeHead(301, { location: '/.well-known/svc.json' }).end()
    else response.writeHead(302, { location: `/${hops + 1}` }).end()
  })
  const result = await createManifestClient({ url: `${origin}/1` }).get()
  t.equal(result.status, 'fetched')
  t.same(requests, ['/1', '/2', '/3', '/4', '/5', '/.well-known/svc.json'])

  const tooMany = await createManifestClient({ url: `${origin}/old.json` }).get().catch((error) => error)
  t.equal(tooMany.code, 'SVC_CLIENT_REDIRECT')
  t.equal(tooMany.message, `GET ${origin}/old.json redirected more than 5 times; gave up`)

  const loop = await createManifestClient({ url: `${origin}/6` }).get().catch((error) => error)
  t.equal(loop.code, 'SVC_CLIENT_REDIRECT')
})

t.test('a revalidation follows the same redirect and sends the cached checksum', async (t) => {
  const manifest = manifestOf()
  const { origin } = await rawServer(t, (request, response) => {
    if (request.url === '/old.json') response.writeHead(301, { location: '/svc.json' }).end()
    else if (request.headers['if-none-match'] === `"${manifest.checksum}"`) response.writeHead(304).end()
    else sendJson(response, manifest)
  })
  const client = createManifestClient({ url: `${origin}/old.json` })
  t.equal((await client.get()).status, 'fetched')
  t.equal((await client.get()).status, 'revalidated')
})

t.test('a Location that is no URL is refused; a 3xx without one is a status error', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    if (request.url === '/bad.json') response.writeHead(302, { location: 'http://[oops' }).end()
    else response.writeHead(302).end()
  })
  const bad = await createManifestClient({ url: `${origin}/bad.json` }).get().catch((error) => error)
  t.equal(bad.code, 'SVC_CLIENT_REDIRECT')
  t.equal(bad.message, `GET ${origin}/bad.json redirected to "http://[oops", which is not a URL`)
  const bare = await createManifestClient({ url: `${origin}/bare.json` }).get().catch((error) => error)
  t.equal(bare.code, 'SVC_CLIENT_HTTP_STATUS')
  t.equal(bare.status, 302)
})

t.test('a fetch of your own that follows redirects itself: an answer from another origin is refused', async (t) => {
  const elsewhere = await rawServer(t, (request, response) => sendJson(response, manifestOf()))
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(302, { location: `${elsewhere.origin}/svc.json` }).end()
  })
  const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'follow' })
  const error = await createManifestClient({ url: `${origin}/svc.json`, fetch: following }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_REDIRECT')
  t.match(error.message, `redirected to ${elsewhere.origin}/svc.json, another origin; refused`)
})

t.test('svc-manifest fetch: a cross-origin redirect is exit 2 with one line', async (t) => {
  const elsewhere = await rawServer(t, (request, response) => sendJson(response, manifestOf()))
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(302, { location: `${elsewhere.origin}/svc.json` }).end()
  })
  const run = await cli('fetch', `${origin}/svc.json`)
  t.equal(run.code, 2)
  t.equal(run.stdout, '')
  oneLine(t, run.stderr, `redirected to ${elsewhere.origin}/svc.json, another origin; refused`)
  t.same(elsewhere.requests, [])
})
