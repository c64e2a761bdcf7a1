import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import canonicalize from 'canonicalize'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { checksumOf, type ManifestCommand } from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

type Commands = Record<string, ManifestCommand>

/** The checksum as any client computes it: the reference RFC 8785 implementation, then SHA-256. */
function referenceChecksum (commands: unknown): string {
  return createHash('sha256').update(canonicalize(commands) as string, 'utf8').digest('hex')
}

const command = (extra: Record<string, unknown>): ManifestCommand => ({ description: 'D', ...extra }) as ManifestCommand

const cases: [string, Commands][] = [
  ['keys out of order at every level', { b: command({ params: { z: { type: 'string', required: true }, a: { type: 'number', required: false, default: 1 } } }), a: command({}) }],
  ['objects inside arrays', { a: command({ params: { p: { type: 'array', required: false, default: [{ y: 1, x: 2 }, 'plain', [{ b: 1, a: 0 }]] } } }) }],
  ['arrays left as they are', { a: command({ tags: ['z', 'a'], params: { p: { type: 'array', required: false, default: [3, 1, 2] } } }) }],
  ['array-index keys, which JavaScript orders numerically', { a: command({ params: { 10: { type: 'string', required: true }, 9: { type: 'string', required: true }, b: { type: 'string', required: true } } }) }],
  ['keys that only look like array indexes', { a: command({ params: { '01': { type: 'string', required: true }, 4294967295: { type: 'string', required: true }, '-1': { type: 'string', required: true }, '1e3': { type: 'string', required: true } } }) }],
  ['an index key inside an array', { a: command({ params: { p: { type: 'array', required: false, default: ['x', { 3: 'c', 1: 'a' }] } } }) }],
  ['an index key deep inside a default', { a: command({ params: { p: { type: 'object', required: false, default: { 2: 'two', 10: 'ten', k: { 1: true } } } } }) }],
  ['UTF-16 code-unit order, escapes and astral characters', { a: command({ description: 'Quote " backslash \\ tab \t ü 😀 \u2028', params: { é: { type: 'string', required: true }, z: { type: 'string', required: true }, '😀': { type: 'string', required: true }, '\uff61': { type: 'string', required: true } } }) }],
  ['numbers in JCS form', { a: command({ params: { p: { type: 'number', required: false, default: 1e21 }, q: { type: 'number', required: false, default: 0.1 }, r: { type: 'number', required: false, default: -0 } } }) }],
  ['undefined members are left out', { a: command({ tags: undefined, params: { p: { type: 'string', required: false, default: null } } }) }]
]

for (const [label, commands] of cases) {
  t.test(`checksumOf agrees with RFC 8785: ${label}`, async (t) => {
    t.equal(checksumOf(commands), referenceChecksum(commands))
  })
}

t.test('checksumOf does not reorder or change what it is given', async (t) => {
  const commands: Commands = { b: command({ params: { z: { type: 'string', required: true }, a: { type: 'string', required: true } } }), a: command({}) }
  const before = JSON.stringify(commands)
  checksumOf(commands)
  t.equal(JSON.stringify(commands), before)
})

t.test('values RFC 8785 forbids are refused, as the reference implementation refuses them', async (t) => {
  const forbidden: [string, Commands][] = [
    ['NaN', { a: command({ params: { p: { type: 'number', required: false, default: Number.NaN } } }) }],
    ['Infinity', { a: command({ params: { p: { type: 'number', required: false, default: Infinity } } }) }],
    ['a lone surrogate in a value', { a: command({ description: 'broken \ud800' }) }],
    ['a lone surrogate in a key', { a: command({ params: { '\udc00': { type: 'string', required: true } } }) }]
  ]
  for (const [label, commands] of forbidden) {
    t.throws(() => canonicalize(commands), label)
    t.throws(() => checksumOf(commands), label)
  }
})

t.test('a served manifest with index-like param names and object defaults verifies', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/grid', {
      svc: {
        description: 'Set grid cells',
        params: Type.Object({
          10: Type.String(),
          9: Type.String(),
          layout: Type.Object({}, { default: { rows: 2, cols: 3, 1: 'first' } })
        })
      }
    }, async () => ({}))
  })
  const manifest = await fetchManifest(app)
  t.equal(manifest.checksum, referenceChecksum(manifest.commands))
})

t.test('a manifest whose commands outgrow one piece of hashed text (64 KB) verifies, and sorts names by code unit', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    for (let index = 0; index < 400; index++) {
      app.post(`/r${index}/orders`, {
        svc: { description: `Places order ${index} ${'of many words '.repeat(20)}`, params: Type.Object({ sku: Type.String(), quantity: Type.Integer({ minimum: 1 }) }) }
      }, async () => ({}))
    }
    app.get('/Z/last', { svc: { description: 'Upper case sorts first' } }, async () => ({}))
  })
  const manifest = await fetchManifest(app)
  t.ok(JSON.stringify(manifest.commands).length > 2 * 64 * 1024)
  t.equal(manifest.checksum, referenceChecksum(manifest.commands))
  t.same(Object.keys(manifest.commands).slice(0, 3), ['Z.last', 'r0.orders', 'r1.orders'])
})

t.test('a served manifest with every command field, descriptions and an index key in a default, verifies', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/orders', {
      svc: {
        name: 'order.place',
        description: 'Place an order',
        params: Type.Object({
          sku: Type.String({ description: 'Stock unit' }),
          options: Type.Object({}, { default: { zeta: [{ b: 1, a: 2 }], alpha: 'é', 2: 'an index key', on: true, none: null } })
        }),
        returns: Type.Object({ id: Type.String() }, { description: 'The new order' }),
        tags: ['orders', 'write'],
        hints: { sideEffects: true, idempotent: false }
      }
    }, async () => ({ id: '1' }))
  })
  const manifest = await fetchManifest(app)
  t.same(manifest.commands['order.place'].returns, { type: 'object', description: 'The new order', properties: { id: { type: 'string', required: true } } })
  t.equal(manifest.checksum, referenceChecksum(manifest.commands))
})

t.test('a command value RFC 8785 cannot encode stops the start, naming the command and the field', async (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a NaN default', { params: Type.Object({ n: Type.Number({ default: Number.NaN }) }) }, /command "x" at params\.n\.default holds NaN/],
    ['an Infinity in the default of a param whose name is not an identifier', { params: Type.Object({ 'max-count': Type.Number({ default: Infinity }) }) }, /command "x" at params\["max-count"\]\.default holds Infinity/],
    ['an Infinity deep inside a default', { params: Type.Object({ o: Type.Object({}, { default: { list: [1, -Infinity] } }) }) }, /command "x" at params\.o\.default\.list\[1\] holds -Infinity/],
    ['a lone surrogate inside a default', { params: Type.Object({ s: Type.String({ default: 'a\ud800' }) }) }, /command "x" at params\.s\.default holds a string with a lone surrogate/],
    ['a lone surrogate in the description', { description: 'Broken \udc00' }, /command "x" at description holds a string with a lone surrogate/],
    ['a lone surrogate in a tag', { tags: ['ok', '\ud800'] }, /command "x" at tags\[1\] holds a string with a lone surrogate/],
    ['a lone surrogate in a param name', { params: Type.Object({ '\ud800': Type.String() }) }, /command "x" at params has a key with a lone surrogate/],
    ['a lone surrogate in a param description', { params: Type.Object({ q: Type.String({ description: 'Q \ud800' }) }) }, /command "x" at params\.q\.description holds a string with a lone surrogate/],
    ['a lone surrogate in the returns description', { returns: Type.String({ description: '\udfff' }) }, /command "x" at returns\.description holds a string with a lone surrogate/]
  ]
  for (const [label, svc, message] of cases) {
    const fastify = Fastify()
    // Ajv would refuse some of these schemas first; what is tested here is the manifest.
    fastify.setValidatorCompiler(() => () => true)
    await fastify.register(svcManifest, requiredOptions)
    fastify.post('/x', { svc: { description: 'X', ...svc } }, async () => ({}))
    await t.rejects(Promise.resolve(fastify.ready()), { code: 'FST_SVC_INVALID_JSON_VALUE', message }, label)
    const response = await fastify.inject({ method: 'GET', url: '/.well-known/svc.json' })
    t.equal(response.json().code, 'FST_SVC_NOT_READY', `${label}: nothing is served`)
  }
})

t.test('a forbidden value is named even beside an index-like param name, which sends the checksum down the generic path', async (t) => {
  const fastify = Fastify()
  fastify.setValidatorCompiler(() => () => true)
  await fastify.register(svcManifest, requiredOptions)
  fastify.post('/a', { svc: { description: 'A', params: Type.Object({ 0: Type.String() }) } }, async () => ({}))
  fastify.post('/b', { svc: { description: 'B', tags: ['\ud800'] } }, async () => ({}))
  await t.rejects(Promise.resolve(fastify.ready()), { code: 'FST_SVC_INVALID_JSON_VALUE', message: /command "b" at tags\[0\] holds a string with a lone surrogate/ })
})
