import { createHash } from 'node:crypto'
import t from 'tap'
import { CommandError, createManifestClient, diffManifests, ManifestClientError, verifyManifest, type ServedManifest } from '../../lib/client/index.js'
import { SURF_MANIFEST_TEXT, SURF_TOKEN, surfServer } from '../helpers/surf.js'

const surfManifest = (): Record<string, any> => JSON.parse(SURF_MANIFEST_TEXT)

t.test('verifyManifest takes a real Surf manifest, its checksum computed Surf\'s way; strict refuses it', async (t) => {
  t.same(verifyManifest(surfManifest()), { ok: true, errors: [], checksumMethod: 'surf' })
  t.match(verifyManifest(surfManifest(), { strict: true }), { ok: false, errors: ['/svc: expected a known layout, "1.0" or "0.5.0"; got nothing'] })

  const tampered = surfManifest()
  tampered.commands.search.description = 'Search, and more'
  t.match(verifyManifest(tampered), { ok: false, errors: [/^\/checksum: [0-9a-f]{64} does not match the commands, whose checksum is [0-9a-f]{64}, or [0-9a-f]{64} as Surf computes it$/] },
    'a checksum that matches neither way is refused')

  const broken = surfManifest()
  broken.commands.search.returns.items = { $ref: '#/types/Missing' }
  broken.commands['product.get'].returns = { $ref: '#/definitions/Product' }
  t.same(verifyManifest(broken).errors, ['/commands/product.get/returns/$ref: Expected string to match \'^#/types/(?!(?:undefined|bigint|symbol|function)$)[A-Za-z_$][A-Za-z0-9_$]*$\''],
    'a $ref is #/types/<Name>')
  broken.commands['product.get'].returns = { $ref: '#/types/Product' }
  t.same(verifyManifest(broken).errors, ['/commands/search/returns/items/$ref: "#/types/Missing" names no type defined in /types'], 'and names a type the manifest defines')
})

t.test('the client reads a Surf service: its manifest as served, a view for readers, commands at /surf/execute', async (t) => {
  const surf = await surfServer(t)
  const client = createManifestClient({ url: `${surf.origin}/.well-known/surf.json` })
  const result = await client.get()
  t.equal(result.status, 'fetched')
  t.equal(result.checksumMethod, 'surf')
  t.same(result.served, surfManifest(), 'kept exactly as served')
  t.same(Object.keys(result.served), Object.keys(surfManifest()), 'in its order')
  const { manifest } = result
  t.equal(manifest.svc, '1.0', 'read as layout 1.0')
  t.equal(manifest.surf, '0.1.0', 'its own version kept')
  t.same(manifest.commands.search.params, {
    query: { type: 'string', required: true },
    limit: { type: 'number', required: false, description: 'Maximum number of items to return.' },
    cursor: { type: 'string', required: false, description: 'Opaque cursor from a previous response\'s nextCursor.' }
  }, 'a missing required means not required')
  t.same(manifest.commands.search.returns, { type: 'array', items: { type: 'Product', $ref: '#/types/Product' } }, 'a $ref names its type')
  t.same(manifest.commands['product.get'].returns, { type: 'Product', $ref: '#/types/Product' })
  t.same(manifest.types.Product.properties, { sku: { type: 'string', required: true }, name: { type: 'string', required: false }, price: { type: 'number', required: false } })
  t.same(manifest.events['cart.updated'], { description: 'The cart changed', data: { items: { type: 'array', required: false } }, scope: 'session' }, 'an event\'s scope kept')
  t.match(manifest.commands.search, { hints: { idempotent: true, sideEffects: false, estimatedMs: 50 }, paginated: true }, 'Surf\'s fields kept')
  t.match(manifest.commands['product.get'], { rateLimit: { windowMs: 60000, maxRequests: 30 } })
  t.equal(manifest.commands.report.auth, 'none')
  t.equal(manifest.baseUrl, undefined, 'no baseUrl: none made up')

  t.same(await client.execute('search', { query: 'tea' }), { items: [{ sku: 'tea-1', name: 'Tea matching tea', price: 4 }], hasMore: false })
  const refused = await client.execute('cart.add', { sku: 'x' }).catch((error) => error)
  t.ok(refused instanceof CommandError, 'Surf\'s 401 is a command error, read with the HTTP status')
  t.match(refused, { code: 'AUTH_REQUIRED', status: 401, message: 'Authentication required for command: cart.add' })
  t.same(await client.execute('cart.add', { sku: 'x' }, { token: SURF_TOKEN }), { added: 'x', quantity: 1 }, 'the token as Bearer')
  t.match(await client.execute('nope').catch((error) => error), { code: 'UNKNOWN_COMMAND', status: 404 })
  t.same(surf.posts.map(({ path }) => path), ['/surf/execute', '/surf/execute', '/surf/execute', '/surf/execute'], 'under /surf')

  const again = await client.get()
  t.equal(again.status, 'fresh')
  t.equal(again.checksumMethod, 'surf', 'said again from the cache')
  t.equal(again.served, result.served)
})

t.test('a Link header names a Surf service\'s endpoints elsewhere', async (t) => {
  const surf = await surfServer(t, { link: '</api/surf/execute>; rel="svc-execute"' })
  const client = createManifestClient({ url: `${surf.origin}/.well-known/surf.json` })
  t.same(await client.execute('search', { query: 'tea' }), { items: [{ sku: 'tea-1', name: 'Tea matching tea', price: 4 }], hasMore: false })
  t.same(surf.posts.map(({ path }) => path), ['/api/surf/execute'])
})

t.test('a Surf service that changed: the drift, compared as readers read both', async (t) => {
  const changed = surfManifest()
  changed.commands['product.get'].params.sku.required = true
  changed.commands.search.returns = { $ref: '#/types/Product' }
  delete changed.events
  delete changed.types.Product.properties.price
  changed.commands.search.hints.estimatedMs = 80
  const sorted = Object.fromEntries(Object.keys(changed.commands).sort().map((name) => [name, changed.commands[name]]))
  changed.checksum = createHash('sha256').update(JSON.stringify(sorted)).digest('hex')
  let text = SURF_MANIFEST_TEXT
  const surf = await surfServer(t, { manifest: () => text })
  let now = 0
  const client = createManifestClient({ url: `${surf.origin}/.well-known/surf.json`, now: () => now })
  await client.get()
  text = JSON.stringify(changed)
  now += 301_000
  const result = await client.get()
  t.equal(result.status, 'changed')
  t.same(result.drift!.breaking.map(({ kind, name }) => `${kind} ${name}`), [
    'param.required-changed product.get(sku)',
    'returns.changed search',
    'event.removed cart.updated',
    'type.changed Product'
  ], 'a param that was optional (no required) and is now required breaks; so do the $ref and the missing events')
  t.same(result.drift!.nonBreaking.map(({ kind, name }) => `${kind} ${name}`), ['hints.changed search'], 'a hint the reader does not know changed: shown, not breaking')
  t.same(diffManifests(surfManifest() as ServedManifest, changed as ServedManifest), result.drift, 'the served manifests diff the same')
})

t.test('a service with neither manifest path answers 404: the client says so', async (t) => {
  const surf = await surfServer(t)
  const error = await createManifestClient({ url: `${surf.origin}/.well-known/svc.json` }).get().catch((error) => error)
  t.ok(error instanceof ManifestClientError)
  t.match(error, { code: 'SVC_CLIENT_HTTP_STATUS', status: 404 })
})
