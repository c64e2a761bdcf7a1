import t from 'tap'
import { endpointsOf } from '../../lib/manifest/invocation.js'
import { readyApp } from '../helpers/app.js'

// The manifest's Link header names each endpoint the plugin serves, in one order, on the 200 and the 304:
// the order the endpoints add their routes in.

const MANIFEST = '/.well-known/svc.json'

t.test('every endpoint on: each named once, in order, at its own path', async (t) => {
  const app = await readyApp(t, {
    svc: '0.5.0',
    basePath: '/api',
    channels: { cart: { description: 'A cart' } },
    mcp: { path: '/agents/mcp' },
    ui: true,
    auth: { type: 'bearer', description: 'A token', verify: () => ({ sub: 'a' }), authorizationServers: ['https://as.example'] }
  })
  const response = await app.inject({ method: 'GET', url: MANIFEST })
  const link = '</api/execute>; rel="svc-execute", </api/pipeline>; rel="svc-pipeline", </api/events>; rel="svc-events", ' +
    '</api/channels>; rel="svc-channels", </agents/mcp>; rel="mcp", </api/ui>; rel="svc-ui"'
  t.equal(response.headers.link, link)
  const notModified = await app.inject({ method: 'GET', url: MANIFEST, headers: { 'if-none-match': response.headers.etag as string } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.link, link)
  t.same(endpointsOf(`https://shop.example${MANIFEST}`, link), {
    execute: 'https://shop.example/api/execute',
    pipeline: 'https://shop.example/api/pipeline',
    events: 'https://shop.example/api/events',
    channels: 'https://shop.example/api/channels'
  }, 'what a client and the page read of it')
})

t.test('every optional endpoint off: the events stream alone', async (t) => {
  const app = await readyApp(t, { invoke: false })
  const response = await app.inject({ method: 'GET', url: MANIFEST })
  t.equal(response.headers.link, '</svc/events>; rel="svc-events"')
})
