import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { checksumOf, verifyManifest, type Manifest } from '../../lib/client/index.js'
import { readyApp } from '../helpers/app.js'

async function served (t: Test, svc: '1.0' | '0.5.0'): Promise<Manifest> {
  const app = await readyApp(t, { svc, types: { Product: Type.Object({ sku: Type.String() }) } }, (app) => {
    app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }), returns: Type.Array(Type.Ref('Product')) } }, async () => [])
  })
  return (await app.inject('/.well-known/svc.json')).json()
}

/** Surf's own way (its generateManifest): SHA-256 of JSON.stringify of the commands with their names sorted. */
function surfChecksum (commands: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.keys(commands).sort().map((name) => [name, commands[name]]))
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex')
}

t.test('a manifest as served verifies, in both layouts, strictly and as a reader takes it', async (t) => {
  for (const layout of ['1.0', '0.5.0'] as const) {
    t.same(verifyManifest(await served(t, layout), { strict: true }), { ok: true, errors: [] }, layout)
    t.same(verifyManifest(await served(t, layout)), { ok: true, errors: [] }, layout)
  }
})

t.test('commands changed without the checksum: tampered', async (t) => {
  const manifest = await served(t, '1.0')
  manifest.commands.search.description = 'Search, and more'
  const { ok, errors } = verifyManifest(manifest, { strict: true })
  t.equal(ok, false)
  t.same(errors, [`/checksum: ${manifest.checksum} does not match the commands, whose checksum is ${checksumOf(manifest.commands)}`])
  t.same(verifyManifest(manifest).errors, [
    `/checksum: ${manifest.checksum} does not match the commands, whose checksum is ${checksumOf(manifest.commands)}, or ${surfChecksum(manifest.commands)} as Surf computes it`
  ], 'a reader says both checksums it tried')
})

t.test('a change outside commands keeps the checksum valid (it covers commands only)', async (t) => {
  const manifest = await served(t, '1.0')
  manifest.description = 'Edited'
  t.same(verifyManifest(manifest), { ok: true, errors: [] })
})

t.test('schema problems are listed once per field, each with its JSON pointer (strict)', async (t) => {
  const manifest: any = await served(t, '0.5.0')
  delete manifest.name
  manifest.commands.search.hints = { cached: true }
  manifest.extra = 1
  const { ok, errors } = verifyManifest(manifest, { strict: true })
  t.equal(ok, false)
  t.same(errors, [
    '/name: Expected required property',
    '/extra: Unexpected property',
    '/commands/search/hints/cached: Unexpected property'
  ])
})

t.test('the checksum of a manifest that fails its schema is not looked at', async (t) => {
  const manifest: any = await served(t, '1.0')
  manifest.checksum = 'not a checksum'
  t.same(verifyManifest(manifest).errors, ['/checksum: Expected string to match \'^[0-9a-f]{64}$\''])
})

t.test('not a manifest at all', async (t) => {
  for (const value of [null, 'svc', [], 42]) {
    t.same(verifyManifest(value), { ok: false, errors: ['/: expected a manifest object'] }, JSON.stringify(value))
  }
  t.same(verifyManifest({ svc: '2.0' }, { strict: true }).errors, ['/svc: expected a known layout, "1.0" or "0.5.0"; got "2.0"'])
  t.same(verifyManifest({}, { strict: true }).errors, ['/svc: expected a known layout, "1.0" or "0.5.0"; got nothing'])
  t.same(verifyManifest({ surf: '0.1.0' }, { strict: true }).errors, ['/svc: expected a known layout, "1.0" or "0.5.0"; got nothing'], 'strict: Surf\'s field is no layout')
  const reader = '/svc: expected a known layout, "1.0" or "0.5.0" (or Surf\'s "surf" field)'
  t.same(verifyManifest({ svc: '2.0' }).errors, [`${reader}; got "2.0"`])
  t.same(verifyManifest({}).errors, [`${reader}; got nothing`])
  t.same(verifyManifest({ svc: 'surf', surf: '0.1.0' }).errors, [`${reader}; got "surf"`], 'svc decides when it is there')
})

t.test('checksumOf from the client is the canonical checksum of any JSON value it is given', async (t) => {
  t.equal(checksumOf(null as never), createHash('sha256').update('null').digest('hex'))
  t.equal(checksumOf({ b: { z: 1, a: [2, { y: 3, x: 4 }] } } as never), createHash('sha256').update('{"b":{"a":[2,{"x":4,"y":3}],"z":1}}').digest('hex'))
})

t.test('a type field naming a type the manifest does not define is refused before the checksum', async (t) => {
  const manifest = await served(t, '1.0')
  manifest.events = { ...manifest.events, 'stock.low': { description: 'Low', data: { sku: { type: 'Sku', required: true } } } }
  t.same(verifyManifest(manifest), { ok: false, errors: ['/events/stock.low/data/sku/type: "Sku" is neither a JSON type nor a type defined in /types'] })
  manifest.types.Sku = { type: 'string' }
  t.same(verifyManifest(manifest), { ok: true, errors: [] }, 'defined: accepted')
})

t.test('a type named inside items or nested properties must be defined too, however deep', async (t) => {
  const manifest = await served(t, '1.0')
  manifest.commands.search.params = {
    filter: {
      type: 'object',
      required: false,
      properties: {
        brand: { type: 'Brand', required: false },
        tags: { type: 'array', required: false, items: { type: 'object', properties: { label: { type: 'Label', required: true } } } }
      }
    },
    skus: { type: 'array', required: false, items: { type: 'Sku' } }
  }
  manifest.types.Bundle = { type: 'array', items: { type: 'Product' } }
  manifest.types.Shelf = { type: 'object', properties: { rows: { type: 'array', required: true, items: { type: 'Row' } } } }
  manifest.checksum = checksumOf(manifest.commands)
  t.same(verifyManifest(manifest), {
    ok: false,
    errors: [
      '/commands/search/params/filter/properties/brand/type: "Brand" is neither a JSON type nor a type defined in /types',
      '/commands/search/params/filter/properties/tags/items/properties/label/type: "Label" is neither a JSON type nor a type defined in /types',
      '/commands/search/params/skus/items/type: "Sku" is neither a JSON type nor a type defined in /types',
      '/types/Shelf/properties/rows/items/type: "Row" is neither a JSON type nor a type defined in /types'
    ]
  }, 'Bundle\'s items name a type that is defined: no error')
  Object.assign(manifest.types, { Brand: { type: 'string' }, Label: { type: 'string' }, Sku: { type: 'string' }, Row: { type: 'array' } })
  t.same(verifyManifest(manifest), { ok: true, errors: [] }, 'all defined: accepted')
})

/** The spec's own example, as its tables show it: no `required`, no `baseUrl`, a 0.5.0 channel. */
function specExample (): Record<string, any> {
  const commands = {
    search: { description: 'Search products', params: { query: { type: 'string', required: true }, limit: { type: 'number', default: 10 } }, returns: { type: 'object' }, hints: { idempotent: true, sideEffects: false } },
    'cart.add': { description: 'Add to cart', params: { sku: { type: 'string' }, quantity: { type: 'number', default: 1 } }, auth: 'required', tags: ['cart'] }
  }
  return {
    svc: '0.5.0',
    name: 'Shop',
    description: 'A shop',
    about: 'Friendly tone.',
    version: '1.0.0',
    auth: { type: 'bearer', description: 'JWT bearer token' },
    commands,
    events: { 'cart.updated': { description: 'Cart contents changed', data: { items: { type: 'array' } } } },
    channels: { 'cart.state': { description: 'Real-time cart state' } },
    types: { Product: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } } } },
    checksum: checksumOf(commands as never),
    updatedAt: '2026-01-01T00:00:00.000Z'
  }
}

t.test('a reader takes the spec\'s own example shapes: params, data fields and properties without required, no baseUrl', async (t) => {
  const example = specExample()
  t.same(verifyManifest(example), { ok: true, errors: [] })
  t.same(verifyManifest(example, { strict: true }).errors, [
    '/baseUrl: Expected required property',
    '/commands/search/params/limit/required: Expected required property',
    '/commands/cart.add/params/sku/required: Expected required property',
    '/commands/cart.add/params/quantity/required: Expected required property',
    '/events/cart.updated/data/items/required: Expected required property',
    '/types/Product/properties/sku/required: Expected required property',
    '/types/Product/properties/price/required: Expected required property'
  ], 'strictly, the plugin\'s own output: every required there')
  const least = { svc: '1.0', name: 'Least', commands: { ping: { description: 'Ping' } }, checksum: checksumOf({ ping: { description: 'Ping' } }) }
  t.same(verifyManifest(least), { ok: true, errors: [] }, 'the layout version, name, commands and checksum are all a reader needs')
})

t.test('fields and values a reader does not know are no error; what is there keeps its shape', async (t) => {
  const example = specExample()
  example.commands.search.stream = true
  example.commands.search.hints.estimatedMs = 40
  example.commands['cart.add'].auth = 'hidden'
  example.commands['cart.add'].rateLimit = { windowMs: 1000, maxRequests: 5 }
  example.commands.ping = { description: 'Ping', auth: true, deprecated: false }
  example.auth = { type: 'apiKey', description: 'A key', header: 'x-api-key' }
  example.events['cart.updated'].scope = 'session'
  example.types.Product.properties.sku.example = 'tea-1'
  example.extra = { anything: [1] }
  example.checksum = checksumOf(example.commands as never)
  t.same(verifyManifest(example), { ok: true, errors: [] })

  example.commands.search.params.limit.type = 7
  example.commands.search.description = ''
  example.commands.search.hints.idempotent = 'yes'
  example.commands['cart.add'].auth = 3
  example.events['cart.updated'].data.items.required = 'no'
  t.same(verifyManifest(example).errors, [
    '/commands/search/description: Expected string length greater or equal to 1',
    '/commands/search/params/limit/type: Expected string',
    '/commands/search/hints/idempotent: Expected boolean',
    '/commands/cart.add/auth: Expected union value',
    '/events/cart.updated/data/items/required: Expected boolean'
  ])
})

t.test('a reader still refuses what the spec forbids', async (t) => {
  const noDescription = specExample()
  delete noDescription.commands.search.description
  t.same(verifyManifest(noDescription).errors, ['/commands/search/description: Expected required property'], 'a command needs its description')

  for (const missing of ['name', 'commands', 'checksum']) {
    const manifest = specExample()
    delete manifest[missing]
    t.match(verifyManifest(manifest).errors, [`/${missing}: Expected required property`], missing)
  }

  const untyped = specExample()
  untyped.commands.search.params.query = { required: true }
  untyped.types.Product.properties.price = { description: 'A price' }
  untyped.commands.search.returns = { type: 'Sku' }
  untyped.checksum = checksumOf(untyped.commands as never)
  t.same(verifyManifest(untyped).errors, [
    '/commands/search/params/query: expected a type or a $ref',
    '/commands/search/returns/type: "Sku" is neither a JSON type nor a type defined in /types',
    '/types/Product/properties/price: expected a type or a $ref'
  ], 'a descriptor names its type, and a type the manifest defines')

  const surfWithoutTypes = { surf: '0.1.0', name: 'S', commands: { get: { description: 'Get', returns: { $ref: '#/types/Item' } } } } as Record<string, any>
  surfWithoutTypes.checksum = checksumOf(surfWithoutTypes.commands)
  t.same(verifyManifest(surfWithoutTypes).errors, ['/commands/get/returns/$ref: "#/types/Item" names no type defined in /types'], 'a manifest without types defines none')
})
