import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

/**
 * Defect: bad input raised bare errors at start-up: a BigInt option or hint (the error formatter itself
 * called JSON.stringify), boolean schemas, a null property schema, a function in a default
 * (DataCloneError), very deep or cyclic schemas (RangeError), `{ type: 'date' }` in a type (Ajv's plain
 * Error). Each is now an FST_SVC_* error naming the field.
 */

type Routes = (app: FastifyInstance) => void

async function startupError (options: Record<string, unknown>, routes: Routes = () => {}): Promise<Error & { code?: string }> {
  const app = Fastify()
  app.register(svcManifest, { ...requiredOptions, ...options } as never)
  app.after(() => routes(app))
  return Promise.resolve(app.ready()).then(() => { throw new Error('ready() resolved') }, (error: Error) => error)
}

function deepSchema (levels: number, wrap: (inner: object) => object): object {
  let schema: object = { type: 'string' }
  for (let index = 0; index < levels; index++) schema = wrap(schema)
  return schema
}

function cyclicSchema (): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: 'object', properties: {} }
  ;(schema.properties as Record<string, unknown>).self = schema
  return schema
}

const deepObject = deepSchema(3000, (inner) => ({ type: 'object', properties: { a: inner } }))
const deepUnion = deepSchema(3000, (inner) => ({ anyOf: [inner] }))
const params = (properties: Record<string, unknown>) => ({ type: 'object', properties })
/**
 * Route options that keep Fastify's own compilers off a route schema, as an app with its own validator or
 * serializer has: Fastify refuses some of these schemas itself, with its own codes, before the plugin maps them.
 */
const ownCompilers = { validatorCompiler: () => () => true, serializerCompiler: () => JSON.stringify }

const cases: Array<[string, Record<string, unknown>, Routes | undefined, string, RegExp]> = [
  ['maxAge: 10n', { maxAge: 10n }, undefined, 'FST_SVC_INVALID_OPTION', /"maxAge" must be .*; got the BigInt 10n/],
  ['name: 10n', { name: 10n }, undefined, 'FST_SVC_INVALID_OPTION', /"name" must be a non-empty string; got the BigInt 10n/],
  ['auth.description: 1n', { auth: { type: 'bearer', description: 1n } }, undefined, 'FST_SVC_INVALID_OPTION', /"auth\.description" .*the BigInt 1n/],
  ['a BigInt hint', {}, (app) => app.get('/a', { svc: { description: 'A', hints: { idempotent: 10n as never } } }, async () => ({})),
    'FST_SVC_INVALID_ROUTE_OPTION', /svc\.hints\.idempotent must be a boolean; got the BigInt 10n/],
  ['a BigInt svc.name', {}, (app) => app.get('/a', { svc: { description: 'A', name: 10n as never } }, async () => ({})),
    'FST_SVC_INVALID_NAME', /command name the BigInt 10n \(route GET \/a, svc\.name\)/],
  ['a cyclic hint object', {}, (app) => {
    const hints: Record<string, unknown> = {}
    hints.idempotent = hints
    app.get('/a', { svc: { description: 'A', hints: hints as never } }, async () => ({}))
  }, 'FST_SVC_INVALID_ROUTE_OPTION', /svc\.hints\.idempotent must be a boolean; got a value that cannot be written as JSON/],
  ['a BigInt inside an option', { version: [1n] }, undefined, 'FST_SVC_INVALID_OPTION', /"version" must be a non-empty string; got \["1n"\]/],
  ['anyOf: [true] in svc.returns', {}, (app) => app.get('/a', { svc: { description: 'A', returns: { anyOf: [true] } } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /GET \/a svc\.returns is the boolean schema true, which allows any value/],
  ['properties: { a: true } in svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: true }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /POST \/a svc\.params\.a is the boolean schema true/],
  ['properties: { a: false } in schema.querystring', {}, (app) => app.get('/a', { schema: { querystring: params({ a: false }) }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /GET \/a schema\.querystring\.a is the boolean schema false, which allows no value/],
  ['a boolean property of a type', { types: { T: params({ a: true }) } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /type "T"\.a is the boolean schema true/],
  ['a null property schema in svc.returns', {}, (app) => app.get('/a', { svc: { description: 'A', returns: params({ a: null }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /GET \/a svc\.returns\.properties\.a is null, where a schema belongs/],
  ['a null property schema in svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: null }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /POST \/a svc\.params\.properties\.a is null, where a schema belongs/],
  ['a null property schema in a type', { types: { T: params({ a: null }) } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /type "T"\.properties\.a is null/],
  ['a null property schema in event data', { events: { 'a.b': { description: 'E', data: params({ a: null }) } } }, undefined,
    'FST_SVC_UNMAPPABLE_SCHEMA', /event "a\.b" data\.properties\.a is null/],
  ['a function in a svc.params default', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: { type: 'object', default: { f () {} } } }) } }, async () => ({})),
    'FST_SVC_INVALID_JSON_VALUE', /POST \/a svc\.params\.properties\.a\.default holds a function, which JSON cannot hold/],
  ['a function in a schema.querystring default', {}, (app) => app.get('/a', { schema: { querystring: params({ a: { type: 'object', default: { f () {} } } }) }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_INVALID_JSON_VALUE', /GET \/a schema\.querystring\.a default holds a function/],
  ['a Date default', {}, (app) => app.get('/a', { schema: { querystring: params({ a: { type: 'string', default: new Date(0) } }) }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_INVALID_JSON_VALUE', /default holds a Date, which is not a plain object/],
  ['a default whose prototype is another object', {}, (app) => app.get('/a', { schema: { querystring: params({ a: { type: 'object', default: Object.create({ inherited: 1 }) } }) }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_INVALID_JSON_VALUE', /default holds an object with a prototype of its own, which is not a plain object/],
  ['a BigInt under an annotation in svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: { type: 'string', 'x-meta': { limits: [1, 10n] } } }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /svc\.params\.properties\.a\.x-meta\.limits\[1\] holds the BigInt 10n; a schema holds JSON values only/],
  ['a 3,000-deep annotation in a type', { types: { T: { type: 'string', 'x-meta': deepSchema(3000, (inner) => ({ a: inner })) } } }, undefined,
    'FST_SVC_UNMAPPABLE_SCHEMA', /type "T"\.x-meta(\.a)+ nests more than 64 levels deep, or contains itself/],
  ['a cyclic default', {}, (app) => {
    const value: Record<string, unknown> = {}
    value.self = value
    app.get('/a', { ...ownCompilers, schema: { querystring: params({ a: { type: 'object', default: value } }) }, svc: { description: 'A' } }, async () => ({}))
  }, 'FST_SVC_INVALID_JSON_VALUE', /default holds values nested more than 64 levels deep, or a value that contains itself/],
  ['a default with a hole', {}, (app) => app.get('/a', { schema: { querystring: params({ a: { type: 'array', default: [1, , 3] } }) }, svc: { description: 'A' } }, async () => ({})), // eslint-disable-line no-sparse-arrays
    'FST_SVC_INVALID_JSON_VALUE', /default holds undefined at \[1\]/],
  ['a 3,000-deep svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: deepObject } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /POST \/a svc\.params(\.properties\.a)+\.properties\.… nests schemas more than 64 levels deep, or contains itself/],
  ['a 3,000-deep svc.returns', {}, (app) => app.get('/a', { svc: { description: 'A', returns: deepUnion } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /nests schemas more than 64 levels deep/],
  ['a 3,000-deep union in a response schema', {}, (app) => app.get('/a', { ...ownCompilers, schema: { response: { 200: deepUnion } }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /GET \/a schema\.response\.200: anyOf, oneOf and allOf nest more than 64 levels deep, or the schema contains itself/],
  ['a 3,000-deep type', { types: { Deep: deepObject } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /type "Deep"(\.properties\.a)+.*… nests schemas/],
  ['a cyclic svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: cyclicSchema() } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /POST \/a svc\.params(\.properties\.self)+.*… nests schemas more than 64 levels deep, or contains itself/],
  ['a cyclic type', { types: { Loop: cyclicSchema() } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /type "Loop"(\.properties\.self)+.*… nests schemas/],
  ['a cyclic event data schema', { events: { 'a.b': { description: 'E', data: cyclicSchema() } } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /event "a\.b" data(\.properties\.self)+.*… nests/],
  ['a cyclic union in a response schema', {}, (app) => {
    const union: Record<string, unknown> = {}
    union.anyOf = [union]
    app.get('/a', { ...ownCompilers, schema: { response: { 200: union } }, svc: { description: 'A' } }, async () => ({}))
  }, 'FST_SVC_UNMAPPABLE_SCHEMA', /schema contains itself/],
  ['{ type: "date" } in a type', { types: { When: { type: 'object', properties: { at: { type: 'date' } } } } }, undefined,
    'FST_SVC_UNMAPPABLE_SCHEMA', /type "When"\.properties\.at\.type: "date" is not a JSON Schema type/],
  ['{ type: "date" } in a type a route refers to', { types: { When: { type: 'date' } } }, (app) => app.post('/a', { schema: { body: params({ at: { $ref: 'When' } }) }, svc: { description: 'A' } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /type "When"\.type: "date" is not a JSON Schema type/],
  ['{ type: 7 } in svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: { type: 7 } }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /svc\.params\.properties\.a\.type: 7 is not a JSON Schema type/],
  ['a BigInt minimum in svc.params', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: { type: 'number', minimum: 1n } }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /svc\.params\.properties\.a\.minimum holds the BigInt 1n; a schema holds JSON values only/],
  ['anyOf that is not a list', {}, (app) => app.post('/a', { svc: { description: 'A', params: params({ a: { anyOf: {} } }) } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /svc\.params\.properties\.a\.anyOf is \{\}; it must be a list of schemas/],
  ['properties that are not a map', {}, (app) => app.get('/a', { svc: { description: 'A', returns: { type: 'object', properties: [] } } }, async () => ({})),
    'FST_SVC_UNMAPPABLE_SCHEMA', /svc\.returns\.properties is \[\]; it must map names to schemas/],
  ['null in a tuple of items', { types: { Pair: { type: 'array', items: [{ type: 'string' }, null] } } }, undefined,
    'FST_SVC_UNMAPPABLE_SCHEMA', /type "Pair"\.items\[1\] is null, where a schema belongs/],
  ['enum that is not a list', { types: { E: { enum: 'abc' } } }, undefined, 'FST_SVC_UNMAPPABLE_SCHEMA', /type "E"\.enum is "abc"; it must be a list of JSON values/]
]

for (const [label, options, routes, code, message] of cases) {
  t.test(`${label}: ${code}, naming the field`, async (t) => {
    const error = await startupError(options, routes)
    t.match(error, { code, message })
    t.notOk(error instanceof RangeError, 'not a RangeError')
  })
}

t.test('a symbol as a type, event or channel name is refused by name, not by a TypeError', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0' })
  t.throws(() => app.svc.type(Symbol('T') as never, { type: 'string' }), { code: 'FST_SVC_INVALID_NAME', message: /type name Symbol\(T\)/ })
  t.throws(() => app.svc.event(Symbol('e') as never, { description: 'E' }), { code: 'FST_SVC_INVALID_NAME' })
  t.throws(() => app.svc.channel(Symbol('c') as never, { description: 'C' }), { code: 'FST_SVC_INVALID_NAME' })
  await app.ready()
  t.throws(() => app.svc.type(Symbol('T') as never, { type: 'string' }), { code: 'FST_SVC_AFTER_READY', message: /app\.svc\.type\(Symbol\(T\)\)/ })
})

t.test('a layout 1.0 app refuses a channel named by a symbol as a layout field', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  t.throws(() => app.svc.channel(Symbol('c') as never, { description: 'C' }), { code: 'FST_SVC_LAYOUT_FIELD', message: /channel Symbol\(c\)/ })
})

t.test('long values are cut short in messages', async (t) => {
  const error = await startupError({ name: 'x'.repeat(500) as never, version: ['y'.repeat(500)] })
  t.match(error, { code: 'FST_SVC_INVALID_OPTION', message: /"version" must be a non-empty string; got \["y+…\./ })
})

t.test('annotations hold any JSON, a $ref in them included: it is data, not a reference', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, types: { T: { type: 'string', 'x-meta': { $ref: 'Nowhere', tags: ['x', null] } } } })
  app.get('/a', { svc: { description: 'A', returns: { $ref: 'T' } } }, async () => 'a')
  // svc.params check the refs of the types they refer to: the annotation's $ref is not one of them.
  app.post('/b', { ...ownCompilers, svc: { description: 'B', params: params({ t: { $ref: 'T' } }) as never } }, async () => 'b')
  await app.ready()
  t.same(app.svc.manifest.types.T, { type: 'string' })
})

t.test('a schema nesting 60 levels is fine', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.post('/a', { svc: { description: 'A', params: deepSchema(60, (inner) => ({ type: 'object', properties: { a: inner } })) as never } }, async () => ({}))
  await t.resolves(Promise.resolve(app.ready()))
})
