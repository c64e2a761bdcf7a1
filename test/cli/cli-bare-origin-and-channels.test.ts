import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { createManifestClient, ManifestClientError } from '../../lib/client/index.js'
import { requiredOptions } from '../helpers/app.js'
import { cli, oneLine } from '../helpers/cli.js'
import { listening } from '../helpers/net.js'

// Found starting the project as a newcomer: `svc-manifest fetch http://host:port` answered "404, expected 200
// or 304" where call, events and mcp take a bare origin; `svc-manifest watch` against a layout-1.0 service
// printed Fastify's raw 404 text; and in layout 0.5.0 the manifest's Link did not name the channels.

async function service (t: Parameters<typeof listening>[0], options: Partial<SvcManifestOptions> = {}): Promise<string> {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(svcManifest, { ...requiredOptions, ...options })
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  return await listening(t, app)
}

t.test('fetch and check take a bare origin, with or without its slash, as the other commands do', async (t) => {
  const origin = await service(t)
  for (const url of [origin, `${origin}/`]) {
    const fetched = await cli('fetch', url)
    t.equal(fetched.code, 0, url)
    t.equal(JSON.parse(fetched.stdout).name, 'Shop')
    t.match((await cli('check', url)).stdout, /valid manifest, layout 1\.0, 1 command/)
  }
  t.equal((await cli('fetch', `${origin}/elsewhere.json`)).code, 2, 'any other path is taken as the manifest\'s own URL')
})

t.test('watch against a service without that channel says so, in one line, exit 1', async (t) => {
  const layout1 = await service(t)
  const none = await cli('watch', layout1, 'cart', 'alice')
  t.equal(none.code, 1)
  oneLine(t, none.stderr, 'has no channel "cart": its manifest (layout 1.0) has no channels.')
  const layout05 = await service(t, { svc: '0.5.0', channels: { wishlist: { description: 'Wishes' } } })
  const other = await cli('watch', layout05, 'cart', 'alice')
  t.equal(other.code, 1)
  oneLine(t, other.stderr, 'has no channel "cart": it declares "wishlist".')
  const client = createManifestClient({ url: `${layout05}/.well-known/svc.json` })
  const error = await client.watch('cart', 'alice', {}, () => {}).then(() => undefined, (error: unknown) => error)
  t.type(error, ManifestClientError)
  t.equal((error as ManifestClientError).code, 'SVC_CLIENT_NO_CHANNEL')
})

t.test('layout 0.5.0 names the channels in the Link header, and the client watches there', async (t) => {
  const origin = await service(t, { svc: '0.5.0', basePath: '/live', channels: { cart: { description: 'Cart' } } })
  const response = await fetch(`${origin}/.well-known/svc.json`)
  t.match(response.headers.get('link'), '</live/channels>; rel="svc-channels"')
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  const controller = new AbortController()
  const states: unknown[] = []
  await client.watch('cart', 'alice', { signal: controller.signal }, (state) => {
    states.push(state)
    controller.abort()
  })
  t.same(states, [{ version: 0, state: null }])
  const layout1 = await fetch(`${await service(t)}/.well-known/svc.json`)
  t.notMatch(layout1.headers.get('link'), 'svc-channels', 'layout 1.0 has no channels to name')
})
