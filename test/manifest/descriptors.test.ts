import * as TypeBox034 from '@sinclair/typebox'
import { S } from 'fluent-json-schema'
import t from 'tap'
import * as TypeBox1 from 'typebox'
import Fastify from 'fastify'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'

/*
 * A caller builds a valid call from the manifest alone (DESIGN §4): every descriptor says what its schema
 * declares, nested objects and array items included, in a fixed key order.
 */

type Builder = typeof TypeBox1.Type

for (const [label, Type] of [['TypeBox 0.34', TypeBox034.Type as unknown as Builder], ['typebox 1.x', TypeBox1.Type]] as const) {
  t.test(`${label}: nested bodies, array items, enums and bounds are described`, async (t) => {
    const app = await readyApp(t, { types: { Tag: Type.String({ minLength: 1, description: 'A tag' }) } }, (app) => {
      app.post('/users/login', {
        svc: {
          description: 'Log in',
          params: Type.Object({
            user: Type.Object({
              email: Type.String({ format: 'email', description: 'Address' }),
              password: Type.String({ minLength: 8, maxLength: 72 })
            }, { description: 'Credentials' })
          }),
          returns: Type.Object({ token: Type.String(), tags: Type.Array(Type.Ref('Tag'), { maxItems: 10 }) })
        }
      }, async () => ({}))
      app.get('/articles', {
        svc: {
          description: 'List articles',
          params: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
            offset: Type.Optional(Type.Integer({ exclusiveMinimum: -1, exclusiveMaximum: 10000 })),
            order: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
            kind: Type.Literal('post'),
            slug: Type.Optional(Type.Union([Type.String({ pattern: '^[a-z-]+$' }), Type.Null()])),
            ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 5 }))
          })
        }
      }, async () => [])
    })
    const { commands, types } = await fetchManifest(app)
    const user = commands['users.login'].params?.user
    t.same(user, {
      type: 'object',
      required: true,
      description: 'Credentials',
      properties: {
        email: { type: 'string', required: true, description: 'Address', format: 'email' },
        password: { type: 'string', required: true, minLength: 8, maxLength: 72 }
      }
    })
    t.same(commands['users.login'].returns, {
      type: 'object',
      properties: {
        token: { type: 'string', required: true },
        tags: { type: 'array', required: true, maxItems: 10, items: { type: 'Tag' } }
      }
    })
    t.same(types.Tag, { type: 'string', description: 'A tag', minLength: 1 })
    const params = commands.articles.params ?? {}
    t.same(params.limit, { type: 'number', required: false, default: 20, minimum: 1, maximum: 50 })
    t.same(params.offset, { type: 'number', required: false, exclusiveMinimum: -1, exclusiveMaximum: 10000 })
    t.same(params.order, { type: 'string', required: true, enum: ['asc', 'desc'] })
    t.same(params.kind, { type: 'string', required: true, enum: ['post'] })
    t.same(params.slug, { type: 'string', required: false, pattern: '^[a-z-]+$' }, 'a nullable field is described by its other branch')
    t.same(params.ids, { type: 'array', required: false, minItems: 1, maxItems: 5, items: { type: 'number', minimum: 1 } })
    t.same(Object.keys(params.limit ?? {}), ['type', 'required', 'default', 'minimum', 'maximum'], 'keys in the fixed order')
    t.same(Object.keys(user ?? {}), ['type', 'required', 'description', 'properties'])
  })
}

t.test('every descriptor key comes in the documented order, whatever the schema\'s order', async (t) => {
  const everything = {
    properties: { a: { type: 'string' } },
    maxItems: 3,
    minItems: 1,
    maxLength: 9,
    minLength: 2,
    exclusiveMaximum: 8,
    exclusiveMinimum: 0,
    maximum: 7,
    minimum: 1,
    pattern: 'x',
    format: 'y',
    enum: ['x'],
    description: 'All',
    default: 'x',
    type: 'string'
  }
  const app = await readyApp(t, {}, (app) => {
    app.get('/everything', { svc: { description: 'Everything', returns: everything } }, async () => ({}))
  })
  const { commands } = await fetchManifest(app)
  t.same(Object.keys(commands.everything.returns ?? {}), [
    'type', 'default', 'description', 'enum', 'format', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum',
    'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems'
  ], 'properties is left out on a string: it describes object fields only')
})

t.test('event data fields and type properties are descriptors with required', async (t) => {
  const Type = TypeBox034.Type
  const app = await readyApp(t, {
    types: { Article: Type.Object({ slug: Type.String(), tagList: Type.Array(Type.String()), body: Type.Optional(Type.String({ maxLength: 5000 })) }) },
    events: { 'article.published': { description: 'Published', data: Type.Object({ slug: Type.String({ minLength: 1 }), by: Type.Optional(Type.Object({ name: Type.String() })) }) } }
  })
  const { events, types } = await fetchManifest(app)
  t.same(types.Article, {
    type: 'object',
    properties: {
      slug: { type: 'string', required: true },
      tagList: { type: 'array', required: true, items: { type: 'string' } },
      body: { type: 'string', required: false, maxLength: 5000 }
    }
  })
  t.same(events['article.published'].data, {
    slug: { type: 'string', required: true, minLength: 1 },
    by: { type: 'object', required: false, properties: { name: { type: 'string', required: true } } }
  })
})

t.test('enum forms: enum, a union of consts (null included), a lone const; a registered type stays a name', async (t) => {
  const app = await readyApp(t, { types: { Size: { type: 'string', enum: ['s', 'm'] } } }, (app) => {
    app.post('/shirts', {
      schema: {
        body: {
          type: 'object',
          required: ['size', 'colour'],
          properties: {
            colour: { type: 'string', enum: ['red', 'blue'] },
            fit: { anyOf: [{ const: 'slim' }, { const: 'loose' }, { type: 'null' }] },
            brand: { const: 'acme' },
            size: { $ref: 'Size', description: 'Shirt size', default: 'm' }
          }
        }
      },
      svc: { description: 'Order a shirt' }
    }, async () => ({}))
  })
  const { commands, types } = await fetchManifest(app)
  const params = commands.shirts.params ?? {}
  t.same(params.colour, { type: 'string', required: true, enum: ['red', 'blue'] })
  t.same(params.fit, { type: 'string', required: false, enum: ['slim', 'loose', null] })
  t.same(params.brand, { type: 'string', required: false, enum: ['acme'] })
  t.same(params.size, { type: 'Size', required: false, default: 'm', description: 'Shirt size' }, 'described once, under types')
  t.same(types.Size, { type: 'string', enum: ['s', 'm'] })
})

t.test('a $ref to a schema shared with app.addSchema becomes a type under its $id; a recursive shape ends in it', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.addSchema({
      $id: 'Comment',
      type: 'object',
      required: ['body'],
      properties: { body: { type: 'string', maxLength: 280 }, author: { $ref: 'Profile#' }, replies: { type: 'array', items: { $ref: 'Comment#' } } }
    })
    app.addSchema({ $id: 'Profile', type: 'object', properties: { username: { type: 'string' } } })
    app.addSchema({ $id: 'https://example.com/money.json', type: 'object', properties: { cents: { type: 'integer', minimum: 0 } } })
    app.get('/comments', {
      schema: { response: { 200: { type: 'array', items: { $ref: 'Comment#' } } } },
      svc: { description: 'Comments' }
    }, async () => [])
    app.get('/price', {
      schema: { response: { 200: { $ref: 'https://example.com/money.json' } } },
      svc: { description: 'Price' }
    }, async () => ({ cents: 1 }))
  })
  const { commands, types } = await fetchManifest(app)
  t.same(commands.comments.returns, { type: 'array', items: { type: 'Comment' } })
  t.same(types.Comment, {
    type: 'object',
    properties: {
      body: { type: 'string', required: true, maxLength: 280 },
      author: { type: 'Profile', required: false },
      replies: { type: 'array', required: false, items: { type: 'Comment' } }
    }
  })
  t.same(types.Profile, { type: 'object', properties: { username: { type: 'string', required: false } } }, 'a shared type a shared type refers to')
  t.same(commands.price.returns, { type: 'object', properties: { cents: { type: 'number', required: false, minimum: 0 } } }, 'a URL $id is no type name: inlined')
  t.same(Object.keys(types), ['Comment', 'Profile'])
})

t.test('fluent-json-schema: route schemas and svc.* are read through valueOf(), the user\'s objects untouched', async (t) => {
  const body = S.object().prop('user', S.object()
    .prop('email', S.string().format('email')).required()
    .prop('password', S.string().minLength(8)).required()).required()
  const query = S.object().prop('limit', S.integer().minimum(1).maximum(50).default(20))
  const returns = S.object().prop('user', S.object().prop('token', S.string()))
  const bodyBefore = JSON.stringify(body.valueOf())
  const app = await readyApp(t, {}, (app) => {
    app.post('/users/login', { schema: { body, response: { 200: returns } }, svc: { description: 'Log in' } }, async () => ({ user: { token: 't' } }))
    app.get('/articles', { svc: { description: 'List', params: query, returns: S.array().items(S.string()) } }, async () => [])
  })
  const { commands } = await fetchManifest(app)
  t.same(commands['users.login'].params?.user, {
    type: 'object',
    required: true,
    properties: {
      email: { type: 'string', required: true, format: 'email' },
      password: { type: 'string', required: true, minLength: 8 }
    }
  })
  t.same(commands['users.login'].returns, { type: 'object', properties: { user: { type: 'object', required: false, properties: { token: { type: 'string', required: false } } } } })
  t.same(commands.articles.params?.limit, { type: 'number', required: false, default: 20, minimum: 1, maximum: 50 })
  t.same(commands.articles.returns, { type: 'array', items: { type: 'string' } })
  t.equal(JSON.stringify(body.valueOf()), bodyBefore, 'the builder is not changed')
  const refused = await app.inject({ method: 'GET', url: '/articles?limit=999' })
  t.equal(refused.statusCode, 400, 'svc.params from a builder validates the route')
  const login = await app.inject({ method: 'POST', url: '/users/login', payload: { user: { email: 'a@b.co', password: 'secret-password' } } })
  t.equal(login.statusCode, 200)
})

t.test('a shared schema without a type name that contains itself is a coded error naming the field', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.addSchema({ $id: 'https://example.com/tree.json', type: 'object', properties: { kids: { type: 'array', items: { $ref: 'https://example.com/tree.json' } } } })
  app.get('/tree', { schema: { response: { 200: { $ref: 'https://example.com/tree.json' } } }, svc: { description: 'Tree' } }, async () => ({}))
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_SVC_UNMAPPABLE_SCHEMA',
    message: /GET \/tree schema\.response\.200\.kids\[\]\.kids.*: items and properties nest more than 64 levels deep, or the schema contains itself\. Register the repeating part as a type/
  })
})
