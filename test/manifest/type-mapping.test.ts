import { Type, type TSchema } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { fetchManifest, readyApp } from '../helpers/app.js'

const product = Type.Object({ sku: Type.String(), price: Type.Number() })

/** The manifest type of one param whose schema is `schema`. */
async function paramType (t: Test, schema: TSchema | object, options: Partial<SvcManifestOptions> = {}): Promise<string> {
  const manifest = await fetchManifest(await readyApp(t, options, (app) => {
    app.post('/probe', { svc: { description: 'Probe', params: Type.Object({ value: schema as TSchema }) } }, async () => ({}))
  }))
  return (manifest.commands.probe.params ?? {}).value.type
}

const cases: [string, object, string][] = [
  ['string', Type.String(), 'string'],
  ['number', Type.Number(), 'number'],
  ['integer maps to number', Type.Integer(), 'number'],
  ['boolean', Type.Boolean(), 'boolean'],
  ['array', Type.Array(Type.Number()), 'array'],
  ['object', Type.Object({ a: Type.String() }), 'object'],
  ['null', Type.Null(), 'null'],
  ['nullable type list', { type: ['string', 'null'] }, 'string'],
  ['nullable integer list', { type: ['null', 'integer'] }, 'number'],
  ['union with null', Type.Union([Type.Number(), Type.Null()]), 'number'],
  ['oneOf with null', { oneOf: [{ type: 'null' }, { type: 'boolean' }] }, 'boolean'],
  ['union of integer and number', Type.Union([Type.Integer(), Type.Number()]), 'number'],
  ['enum of strings', { type: 'string', enum: ['s', 'm', 'l'] }, 'string'],
  ['bare enum of strings', { enum: ['s', 'm', 'l'] }, 'string'],
  ['bare enum of numbers', { enum: [1, 2, 3] }, 'number'],
  ['union of string literals', Type.Union([Type.Literal('asc'), Type.Literal('desc')]), 'string'],
  ['union of number literals', Type.Union([Type.Literal(1), Type.Literal(2)]), 'number'],
  ['single literal', Type.Literal(true), 'boolean'],
  ['nullable enum', Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Null()]), 'string'],
  ['const null and string', { anyOf: [{ const: null }, { const: 'x' }] }, 'string'],
  ['allOf of one type', { allOf: [{ type: 'string' }, { minLength: 2 }] }, 'string'],
  ['allOf narrowing a nullable type', { allOf: [{ type: ['string', 'null'] }, { type: 'string' }] }, 'string'],
  ['TypeBox Intersect of objects', Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })]), 'object'],
  ['enum of arrays', { enum: [[1], [2]] }, 'array'],
  ['Type.Ref to a registered type', Type.Ref('Product'), 'Product'],
  ['$ref with a trailing #', { $ref: 'Product#' }, 'Product'],
  ['nullable $ref', Type.Union([Type.Ref('Product'), Type.Null()]), 'Product']
]

for (const [label, schema, expected] of cases) {
  t.test(`${label} → ${expected}`, async (t) => {
    t.equal(await paramType(t, schema, { types: { Product: product } }), expected)
  })
}

t.test('a schema carrying the $id of a registered type maps to that type', async (t) => {
  const money = Type.Object({ amount: Type.Number(), currency: Type.String() }, { $id: 'urn:shop:money' })
  t.equal(await paramType(t, money, { types: { Money: money } }), 'Money')
  t.equal(await paramType(t, { ...money }, { types: { Money: money } }), 'Money', 'a copy with the same $id too')
})

t.test('a return schema whose $id is a registered type name maps to it', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { types: { Product: product } }, (app) => {
    app.get('/product', { svc: { description: 'One', returns: Type.Object({ sku: Type.String() }, { $id: 'Product' }) } }, async () => ({}))
  }))
  t.same(manifest.commands.product.returns, { type: 'Product' })
})

t.test('a $ref to the $id a registered type carries maps to that type', async (t) => {
  const money = Type.Object({ amount: Type.Number() }, { $id: 'urn:shop:money' })
  const manifest = await fetchManifest(await readyApp(t, { types: { Money: money } }, (app) => {
    app.get('/total', { svc: { description: 'Total', returns: Type.Ref('urn:shop:money') } }, async () => ({}))
    app.get('/balance', { svc: { description: 'Balance', returns: { $ref: 'urn:shop:money#' } } }, async () => ({}))
  }))
  t.same(manifest.commands.total.returns, { type: 'Money' })
  t.same(manifest.commands.balance.returns, { type: 'Money' })
})

t.test('a $ref to the $id of a registered type validates against the schema the app shared under that $id', async (t) => {
  const money = Type.Object({ amount: Type.Number() }, { $id: 'urn:shop:money' })
  const app = await readyApp(t, { types: { Money: money } }, (app) => {
    app.addSchema(money)
    app.post('/pay', { svc: { description: 'Pay', params: Type.Object({ total: Type.Ref('urn:shop:money') }) } }, async (request) => request.body)
  })
  t.equal((await app.inject({ method: 'POST', url: '/pay', payload: { total: { amount: 'ten' } } })).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/pay', payload: { total: { amount: 10 } } })).statusCode, 200)
})

t.test('an unknown $id is read as a plain schema', async (t) => {
  t.equal(await paramType(t, Type.String({ $id: 'urn:other' })), 'string')
})

t.test('registered types: their own $id does not make them refer to themselves', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {
    types: {
      Money: Type.Object({ amount: Type.Number() }, { $id: 'urn:shop:money' }),
      Price: Type.Object({ net: Type.Object({ amount: Type.Number() }, { $id: 'urn:shop:money' }), gross: Type.Ref('Money') }),
      Sku: Type.String({ $id: 'Sku' }),
      Tags: Type.Array(Type.String())
    }
  }))
  t.same(manifest.types, {
    Money: { type: 'object', properties: { amount: { type: 'number', required: true } } },
    Price: { type: 'object', properties: { net: { type: 'Money', required: true }, gross: { type: 'Money', required: true } } },
    Sku: { type: 'string' },
    Tags: { type: 'array', items: { type: 'string' } }
  })
})

t.test('an object type without properties has no properties field', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { types: { Bag: { type: 'object' } } }))
  t.same(manifest.types.Bag, { type: 'object' })
})

t.test('event data fields are mapped the same way', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {
    types: { Product: product },
    events: {
      'cart.updated': {
        description: 'Cart changed',
        data: Type.Object({ items: Type.Array(Type.Ref('Product')), total: Type.Integer(), coupon: Type.Union([Type.String(), Type.Null()]), product: Type.Ref('Product') })
      }
    }
  }))
  t.same(manifest.events['cart.updated'].data, { items: { type: 'array', required: true, items: { type: 'Product' } }, total: { type: 'number', required: true }, coupon: { type: 'string', required: true }, product: { type: 'Product', required: true } })
})

t.test('event data without properties gives an empty data map', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { events: { 'cache.flushed': { description: 'Flushed', data: { type: 'object' } } } }))
  t.same(manifest.events['cache.flushed'], { description: 'Flushed', data: {} })
})

t.test('event data that is not an object schema is a startup error naming the event', async (t) => {
  for (const data of [Type.String(), Type.Array(Type.String()), { properties: { a: { type: 'string' } }, type: 'array' }]) {
    await t.rejects(readyApp(t, { events: { 'cart.updated': { description: 'Changed', data } } }),
      { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /event "cart\.updated": "data" must be an object schema/ })
  }
})

t.test('returns: from svc.returns', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { types: { Product: product } }, (app) => {
    app.get('/products', { svc: { description: 'List', returns: Type.Array(Type.Ref('Product')) } }, async () => [])
    app.get('/product', { svc: { description: 'One', returns: Type.Ref('Product') } }, async () => ({}))
    app.get('/count', { svc: { description: 'Count', returns: Type.Integer({ description: 'How many' }) } }, async () => 0)
  }))
  t.same(manifest.commands.products.returns, { type: 'array', items: { type: 'Product' } })
  t.same(manifest.commands.product.returns, { type: 'Product' })
  t.same(manifest.commands.count.returns, { type: 'number', description: 'How many' })
})

t.test('returns: svc.returns wins over the response schema', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/a', { schema: { response: { 200: Type.String() } }, svc: { description: 'A', returns: Type.Number() } }, async () => 1)
  }))
  t.same(manifest.commands.a.returns, { type: 'number' })
})

t.test('returns: from the response schema for 200, 201 or 2xx, the first found', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, { types: { Product: product } }, (app) => {
    app.get('/ok', { schema: { response: { 404: Type.String(), 200: Type.Ref('Product') } }, svc: { description: 'Ok' } }, async () => product)
    app.post('/created', { schema: { response: { 201: Type.Object({ id: Type.String() }), '2xx': Type.String() } }, svc: { description: 'Created' } }, async () => ({}))
    app.post('/range', { schema: { response: { '2xx': Type.Boolean(), '4xx': Type.String() } }, svc: { description: 'Range' } }, async () => true)
    app.post('/both', { schema: { response: { 201: Type.String(), 200: Type.Number() } }, svc: { description: 'Both' } }, async () => 1)
    app.delete('/gone', { schema: { response: { 204: Type.Null() } }, svc: { description: 'Gone' } }, async () => null)
    app.get('/none', { schema: { querystring: Type.Object({ q: Type.String() }) }, svc: { description: 'None' } }, async () => null)
  }))
  t.same(manifest.commands.ok.returns, { type: 'Product' })
  t.same(manifest.commands.created.returns, { type: 'object', properties: { id: { type: 'string', required: true } } })
  t.same(manifest.commands.range.returns, { type: 'boolean' })
  t.same(manifest.commands.both.returns, { type: 'number' }, '200 before 201')
  t.notOk('returns' in manifest.commands.gone, 'no 200, 201 or 2xx: no returns')
  t.notOk('returns' in manifest.commands.none, 'no response schema: no returns')
})

t.test('returns: a response schema with a content map gives its JSON schema', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/json', {
      schema: { response: { 200: { content: { 'text/plain': { schema: Type.String() }, 'application/json': { schema: Type.Array(Type.String()) } } } } },
      svc: { description: 'Json' }
    }, async () => [])
    app.get('/text', {
      schema: { response: { 200: { content: { 'text/plain': { schema: Type.String() } } } } },
      svc: { description: 'Text' }
    }, async () => '')
  }))
  t.same(manifest.commands.json.returns, { type: 'array', items: { type: 'string' } })
  t.same(manifest.commands.text.returns, { type: 'string' })
})

t.test('returns: an empty content map declares no body, so no returns', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/empty', { schema: { response: { 200: { description: 'Nothing to send', content: {} } } }, svc: { description: 'Empty' } }, async () => '')
  }))
  t.same(manifest.commands.empty, { description: 'Empty' })
})

const anyValue: [string, object][] = [
  ['Type.Any()', Type.Any()],
  ['Type.Unknown()', Type.Unknown()],
  ['{}', {}],
  ['a schema of annotations only', { description: 'Anything' }],
  ['an allOf without any type', { allOf: [{ minLength: 1 }, { maxLength: 3 }] }],
  ['a union with a branch that allows anything', { anyOf: [{ type: 'string' }, {}] }],
  ['a nullable any', Type.Union([Type.Unknown(), Type.Null()])]
]

for (const [label, schema] of anyValue) {
  t.test(`${label} allows any JSON value: type any`, async (t) => {
    t.equal(await paramType(t, schema), 'any')
  })
}

const unmappable: [string, object][] = [
  ['a union of two types', Type.Union([Type.String(), Type.Number()])],
  ['a type list of two types', { type: ['string', 'number'] }],
  ['an enum of mixed types', { enum: ['a', 1] }],
  ['an allOf of disjoint types', { allOf: [{ type: 'string' }, { type: 'number' }] }],
]

for (const [label, schema] of unmappable) {
  t.test(`${label} cannot be mapped: startup error naming the command and field`, async (t) => {
    const error = await paramType(t, schema).catch((caught: Error & { code?: string }) => caught) as Error & { code?: string }
    t.equal(error.code, 'FST_SVC_UNMAPPABLE_SCHEMA')
    t.match(error.message, 'POST /probe svc.params.value')
  })
}

t.test('an unmappable return type names the route and field', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/two', { schema: { response: { 200: Type.Union([Type.String(), Type.Number()]) } }, svc: { description: 'Two' } }, async () => 1)
  }), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/two schema\.response\.200/ })
})

t.test('a return type, an event field or a type that allows any JSON value is any', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {
    events: { 'x.y': { description: 'X', data: Type.Object({ blob: Type.Any({ description: 'Raw' }) }) } },
    types: { Thing: Type.Object({ blob: Type.Unknown() }), Anything: {} }
  }, (app) => {
    app.get('/any', { schema: { response: { 200: Type.Any() } }, svc: { description: 'Any' } }, async () => 1)
  }))
  t.same(manifest.commands.any.returns, { type: 'any' })
  t.same(manifest.events['x.y'].data, { blob: { type: 'any', required: true, description: 'Raw' } })
  t.same(manifest.types, { Anything: { type: 'any' }, Thing: { type: 'object', properties: { blob: { type: 'any', required: true } } } })
})

t.test('an unmappable event field or type property names it', async (t) => {
  await t.rejects(readyApp(t, { events: { 'x.y': { description: 'X', data: Type.Object({ blob: Type.Union([Type.String(), Type.Number()]) }) } } }),
    { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /event "x\.y" data\.blob/ })
  await t.rejects(readyApp(t, { types: { Thing: Type.Object({ blob: { enum: ['a', 1] } as never }) } }),
    { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /type "Thing"\.blob/ })
  await t.rejects(readyApp(t, { types: { When: { type: 'date' } } }),
    { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /type "When"\.type: "date" is not a JSON Schema type/ })
  await t.rejects(readyApp(t, { types: { Nothing: { allOf: [{ type: 'string' }, { type: 'null' }] } } }),
    { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /type "Nothing": it allows no value/ })
})

t.test('a $ref to an unregistered type is a startup error naming the command and field', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.get('/p', { svc: { description: 'P', returns: Type.Ref('Missing') } }, async () => ({}))
  }), { code: 'FST_SVC_UNKNOWN_REF', message: /GET \/p svc\.returns.*"Missing"/ })
  await t.rejects(readyApp(t, { events: { 'a.b': { description: 'A', data: Type.Object({ p: Type.Ref('Missing') }) } } }),
    { code: 'FST_SVC_UNKNOWN_REF', message: /event "a\.b" data\.p/ })
})

t.test('a schema that is the very object registered as a type maps to that type, without $id', async (t) => {
  const Task = Type.Object({ title: Type.String(), done: Type.Boolean() })
  const Tag = Type.String({ minLength: 1 })
  const manifest = await fetchManifest(await readyApp(t, { types: { Task, Tag }, events: { 'task.added': { description: 'Added', data: Type.Object({ task: Task }) } } }, (app) => {
    app.get('/tasks/:id', { schema: { response: { 200: Task } }, svc: { name: 'task', description: 'One task' } }, async () => ({ title: 't', done: false }))
    app.post('/tasks', { svc: { description: 'Add', params: Type.Object({ task: Task, tag: Tag, note: Type.Optional(Tag) }), returns: Task } }, async () => ({}))
    app.get('/maybe', { svc: { description: 'Maybe', returns: Type.Union([Task, Type.Null()]) } }, async () => null)
  }))
  t.same(manifest.commands.task.returns, { type: 'Task' }, 'schema.response')
  t.same(manifest.commands.tasks.returns, { type: 'Task' }, 'svc.returns')
  t.same(manifest.commands.tasks.params, {
    task: { type: 'Task', required: true },
    tag: { type: 'Tag', required: true },
    // TypeBox's Optional() returns a copy of the schema, which is not the registered object.
    note: { type: 'string', required: false, minLength: 1 }
  }, 'params')
  t.same(manifest.commands.maybe.returns, { type: 'Task' }, 'a nullable union of it')
  t.same(manifest.events['task.added'].data, { task: { type: 'Task', required: true } }, 'event data')
  t.same(manifest.types.Task, { type: 'object', properties: { title: { type: 'string', required: true }, done: { type: 'boolean', required: true } } }, 'its own definition is not a reference to itself')
  t.same(manifest.types.Tag, { type: 'string', minLength: 1 })
})

t.test('identity: a registered type used in another type, and one object under two names', async (t) => {
  const Money = Type.Object({ amount: Type.Number() })
  const manifest = await fetchManifest(await readyApp(t, { types: { Money, Price: Type.Object({ net: Money, gross: Money }), Cash: Money } }))
  t.same(manifest.types.Price.properties, { net: { type: 'Money', required: true }, gross: { type: 'Money', required: true } })
  t.same(manifest.types.Cash, { type: 'object', properties: { amount: { type: 'number', required: true } } }, 'the second name is a type of its own')
})

t.test('a copy of a registered schema is not the type: identity, not equality', async (t) => {
  const Task = Type.Object({ title: Type.String() })
  const manifest = await fetchManifest(await readyApp(t, { types: { Task } }, (app) => {
    app.get('/copy', { svc: { description: 'Copy', returns: { ...Task } } }, async () => ({}))
  }))
  t.same(manifest.commands.copy.returns, { type: 'object', properties: { title: { type: 'string', required: true } } })
})

t.test('boolean schemas in unions and intersections', async (t) => {
  t.equal(await paramType(t, { anyOf: [false, { type: 'string' }] }), 'string', 'false adds nothing to a union')
  t.equal(await paramType(t, { allOf: [true, { type: 'number' }, false] }), 'number', 'booleans constrain nothing in allOf')
  await t.rejects(paramType(t, { anyOf: [true, { type: 'string' }] }), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /POST \/probe svc\.params\.value is the boolean schema true, which allows any value/ })
  await t.rejects(paramType(t, { oneOf: [null] }), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /svc\.params\.properties\.value\.oneOf\[0\] is null, where a schema belongs/ })
})
