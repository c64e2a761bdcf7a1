import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import t from 'tap'
import { checksumOf } from '../../lib/index.js'
import { fetchManifest, readyApp } from '../helpers/app.js'

/**
 * Defect: `__proto__` as a param, field, property or type name vanished from the manifest (the route still
 * validated it, so the manifest lied), and a `__proto__` key in a default could make the served checksum
 * differ from sha256 of an independent RFC 8785 implementation. Names are never lost now.
 */

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']

/** `{ [name]: value }` with `name` as an own key whatever it is, as JSON.parse builds it. */
function withKeys (entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  return object
}

function objectSchema (names: string[]): Record<string, unknown> {
  return { type: 'object', properties: withKeys(names.map((name) => [name, { type: 'string', description: `the ${name}` }])), required: names }
}

function sha256 (text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

t.test('param, event field and type property names such as __proto__ are all served', async (t) => {
  const app = await readyApp(t, {
    types: withKeys([['Thing', objectSchema(NAMES.slice(1))], ['$proto', { type: 'string' }]]) as never,
    events: { 'thing.changed': { description: 'Changed', data: objectSchema(NAMES) } }
  }, (app) => {
    app.post('/things', { svc: { description: 'Make a thing', params: objectSchema(NAMES), returns: { $ref: 'Thing' } } }, async (request) => request.body)
  })
  const manifest = await fetchManifest(app)
  const params = manifest.commands.things.params ?? {}
  t.same(Object.keys(params), NAMES, 'every param, in declaration order')
  t.equal(Object.getPrototypeOf(params), Object.prototype, 'the parsed body has plain objects: __proto__ is an own key')
  t.same(Object.getOwnPropertyDescriptor(params, '__proto__')?.value, { type: 'string', required: true, description: 'the __proto__' })
  t.same(Object.keys(manifest.events['thing.changed'].data ?? {}), NAMES)
  t.same(Object.keys(manifest.types), ['$proto', 'Thing'])
  t.same(Object.keys(manifest.types.Thing.properties ?? {}), NAMES.slice(1))
  t.same(manifest.commands.things.returns, { type: 'Thing' })
  t.same(Object.keys(app.svc.manifest.commands.things.params ?? {}), NAMES, 'app.svc.manifest too')
  // The route validates what the manifest describes.
  const missing = await app.inject({ method: 'POST', url: '/things', payload: '{"constructor":"x"}', headers: { 'content-type': 'application/json' } })
  t.equal(missing.statusCode, 400)
})

t.test('path params named __proto__ and constructor are params of the command', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/things/:__proto__/:constructor', { svc: { name: 'things.get', description: 'Get a thing' } }, async (request) => request.params)
  }))
  const params = manifest.commands['things.get'].params ?? {}
  t.same(Object.keys(params), ['__proto__', 'constructor'])
  t.same(Object.getOwnPropertyDescriptor(params, '__proto__')?.value, { type: 'string', required: true })
})

t.test('a __proto__ key in a default is served, and the checksum equals sha256(canonicalize(commands))', async (t) => {
  const defaults = [
    JSON.parse('{"__proto__": {"z": 1, "a": [1, {"__proto__": null}]}, "b": 2}'),
    JSON.parse('{"b": 1, "__proto__": {"y": 2, "a": 1}, "constructor": "c"}'),
    JSON.parse('[{"__proto__": []}, {"10": {"__proto__": 1}, "2": 0}]')
  ]
  for (const value of defaults) {
    const app = await readyApp(t, {}, (app) => {
      app.post('/set', { svc: { description: 'Set', params: { type: 'object', properties: { value: { type: Array.isArray(value) ? 'array' : 'object', default: value } } } } }, async () => ({}))
    })
    const response = await app.inject('/.well-known/svc.json')
    const body = response.json()
    t.same(body.commands.set.params.value.default, value, 'the default is served with every key')
    const independent = sha256(canonicalize(body.commands) as string)
    t.equal(body.checksum, independent, 'served checksum = sha256 of the canonicalize package')
    t.equal(checksumOf(body.commands), independent, 'checksumOf agrees')
    t.equal(response.headers.etag, `"${independent}"`)
  }
})

t.test('checksumOf on objects built with __proto__ as an own key', async (t) => {
  const commands = withKeys([['a', { description: 'A', params: withKeys([['__proto__', { type: 'object', required: false, default: withKeys([['__proto__', 1], ['0', 2]]) }]]) }]])
  t.equal(checksumOf(commands as never), sha256(canonicalize(commands) as string))
})

t.test('type names that are properties of Object.prototype are refused by name, never lost', async (t) => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
    await t.rejects(readyApp(t, { types: withKeys([[name, { type: 'string' }]]) as never }),
      { code: 'FST_SVC_INVALID_NAME', message: new RegExp(`type name "${name.replaceAll('$', '\\$')}" \\(types\\) is a property of Object\\.prototype`) }, name)
  }
})

t.test('a __proto__ key in a registered type is refused: Fastify\'s copy of shared schemas would turn it into a prototype', async (t) => {
  await t.rejects(readyApp(t, { types: { Thing: objectSchema(['ok', '__proto__']) } }),
    { code: 'FST_SVC_INVALID_NAME', message: /type "Thing"\.properties has a key named "__proto__"/ })
  await t.rejects(readyApp(t, { types: { Thing: { type: 'object', default: JSON.parse('{"a":[{"__proto__":1}]}') } } }),
    { code: 'FST_SVC_INVALID_NAME', message: /type "Thing"\.default\.a\[0\] has a key named "__proto__"/ })
})

t.test('Object.prototype is left alone', async (t) => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort()
  await readyApp(t, { types: withKeys([['Polluter', objectSchema(['polluted', 'constructor'])]]) as never }, (app) => {
    app.post('/p', { svc: { description: 'P', params: objectSchema(['__proto__']) } }, async () => ({}))
  })
  t.same(Object.getOwnPropertyNames(Object.prototype).sort(), before)
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})
