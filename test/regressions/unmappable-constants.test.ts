import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type Manifest } from '../../lib/index.js'
import { verifyManifest } from '../../lib/client/index.js'
import { typeReferenceErrors } from '../../lib/manifest/references.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/**
 * Defect: `const: undefined`, `enum: [10n]`, `const: Symbol()` and a function constant were served as the
 * types `undefined`, `bigint`, `symbol` and `function`, and verifyManifest accepted them. Such a schema is
 * now FST_SVC_UNMAPPABLE_SCHEMA, and the manifest schema refuses those type names.
 */

const constants: Array<[string, Record<string, unknown>, RegExp]> = [
  ['const: undefined', { const: undefined }, /const holds undefined/],
  ['enum: [10n]', { enum: [10n] }, /enum holds the BigInt 10n/],
  ['const: Symbol()', { const: Symbol('s') }, /const holds Symbol\(s\)/],
  ['a function constant', { const: () => 1 }, /const holds a function/],
  ['an enum mixing a string and a function', { enum: ['a', () => 1] }, /enum holds a function/]
]

async function rejection (routes: (app: ReturnType<typeof Fastify>) => void, options = {}): Promise<Error & { code?: string }> {
  const app = Fastify()
  app.register(svcManifest, { ...requiredOptions, ...options })
  app.after(() => routes(app))
  return Promise.resolve(app.ready()).then(() => { throw new Error('ready() resolved') }, (error: Error) => error)
}

for (const [label, schema, message] of constants) {
  t.test(`${label} is FST_SVC_UNMAPPABLE_SCHEMA, wherever it is`, async (t) => {
    const places: Array<[string, (app: ReturnType<typeof Fastify>) => void, Record<string, unknown>?]> = [
      ['svc.returns', (app) => app.get('/a', { svc: { description: 'A', returns: schema } }, async () => ({}))],
      ['svc.params', (app) => app.post('/a', { svc: { description: 'A', params: { type: 'object', properties: { p: schema } } } }, async () => ({}))],
      ['a type', () => {}, { types: { T: { type: 'object', properties: { p: schema } } } }],
      ['event data', () => {}, { events: { 'a.b': { description: 'E', data: { type: 'object', properties: { p: schema } } } } }]
    ]
    for (const [place, routes, options] of places) {
      const error = await rejection(routes, options)
      t.equal(error.code, 'FST_SVC_UNMAPPABLE_SCHEMA', place)
      t.match(error.message, message, `${place}: says what the value is`)
    }
  })
}

t.test('in a route\'s response schema, the mapping refuses it, naming the field', async (t) => {
  const error = await rejection((app) => app.get('/a', { schema: { response: { 200: { enum: [10n] } } }, svc: { description: 'A' } }, async () => ({})))
  t.match(error, { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/a schema\.response\.200: its enum holds the BigInt 10n/ })
})

t.test('constants of JSON types still map', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/a', { svc: { description: 'A', returns: { anyOf: [{ const: 'x' }, { const: null }] }, params: { type: 'object', properties: { o: { const: { a: 1 } }, l: { enum: [[1], [2]] } } } } }, async () => ({}))
  }))
  // DESIGN §4: a union of consts, or one const, is the field's enum.
  t.same(manifest.commands.a.returns, { type: 'string', enum: ['x', null] })
  t.same(manifest.commands.a.params, { o: { type: 'object', required: false, enum: [{ a: 1 }] }, l: { type: 'array', required: false, enum: [[1], [2]] } })
})

function manifestWithType (type: string): Manifest {
  return {
    svc: '1.0',
    ...requiredOptions,
    commands: { a: { description: 'A', params: { p: { type, required: true } } } },
    events: {},
    types: {},
    checksum: '',
    updatedAt: '2026-01-01T00:00:00.000Z'
  }
}

t.test('verifyManifest refuses undefined, bigint, symbol and function as type names', async (t) => {
  for (const type of ['undefined', 'bigint', 'symbol', 'function']) {
    const { ok, errors } = verifyManifest(manifestWithType(type))
    t.notOk(ok, type)
    t.match(errors.join('\n'), /\/commands\/a\/params\/p\/type/, `${type}: names the field`)
  }
})

t.test('registered types cannot take a JSON type name or one a manifest never serves', async (t) => {
  for (const name of ['string', 'integer', 'null', 'undefined', 'bigint', 'symbol', 'function']) {
    const error = await rejection(() => {}, { types: { [name]: { type: 'object' } } })
    t.match(error, { code: 'FST_SVC_INVALID_NAME', message: new RegExp(`type name "${name}" \\(types\\) is reserved`) }, name)
  }
})

t.test('typeReferenceErrors: every type field names a JSON type or a type of the manifest', async (t) => {
  const served = await fetchManifest(await readyApp(t, { types: { Product: { type: 'object', properties: { sku: { type: 'string' } } } } }, (app) => {
    app.get('/p', { svc: { description: 'P', returns: { $ref: 'Product' } } }, async () => ({}))
  }))
  t.same(typeReferenceErrors(served), [], 'a served manifest refers only to what it defines')
  const broken = {
    ...manifestWithType('Ghost'),
    commands: { 'a/b~c': { description: 'A', params: { p: { type: 'Ghost', required: true } }, returns: { type: 'integer' } } },
    events: { e: { description: 'E', data: { f: { type: 'Phantom' } } }, bare: { description: 'No data' } },
    types: { T: { type: 'Spectre', properties: { q: { type: 'T' }, r: { type: 'Nope' } } }, U: { type: 'string' } }
  } as unknown as Manifest
  t.same(typeReferenceErrors(broken), [
    '/commands/a~1b~0c/params/p/type: "Ghost" is neither a JSON type nor a type defined in /types',
    '/events/e/data/f/type: "Phantom" is neither a JSON type nor a type defined in /types',
    '/types/T/type: "Spectre" is neither a JSON type nor a type defined in /types',
    '/types/T/properties/r/type: "Nope" is neither a JSON type nor a type defined in /types'
  ])
})
