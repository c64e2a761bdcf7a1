import type { Tool } from '@modelcontextprotocol/client'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { compileInputSchema, DRAFT_07, httpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

const Product = Type.Object({ sku: Type.String(), price: Type.Number({ minimum: 0 }) })

/** An app with MCP on and `routes`, listening; resolves to its tools by name. */
async function toolsOf (t: Test, routes: (app: FastifyInstance) => void) {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, types: { Product }, mcp: true })
  routes(app)
  const origin = await listening(t, app)
  const client = await httpClient(t, `${origin}/mcp`)
  const tools = new Map<string, Tool>()
  for (const tool of (await client.listTools()).tools) {
    tools.set(tool.name, tool)
    compileInputSchema(tool)
  }
  return { tools, client, input: (name: string) => tools.get(name)?.inputSchema }
}

const ok = async () => ({ ok: true })

t.test('URL params are required strings; an optional last param is not required; the wildcard is "*"', async (t) => {
  const { input } = await toolsOf(t, (app) => {
    app.get('/products/:sku/reviews', { svc: { description: 'Reviews' } }, ok)
    app.get('/files/:name?', { svc: { name: 'files.get', description: 'A file or the list' } }, ok)
    app.get('/static/*', { svc: { name: 'static.get', description: 'A static file' } }, ok)
    app.get('/shelves/:shelf/items', {
      svc: { description: 'Items of a shelf', params: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) }) }
    }, ok)
  })
  t.same(input('products_reviews'), { $schema: DRAFT_07, type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] })
  t.same(input('files_get'), { $schema: DRAFT_07, type: 'object', properties: { name: { type: 'string' } } })
  t.same(input('static_get'), { $schema: DRAFT_07, type: 'object', properties: { '*': { type: 'string' } }, required: ['*'] })
  t.same(input('shelves_items'), {
    $schema: DRAFT_07,
    type: 'object',
    properties: { shelf: { type: 'string' }, page: { type: 'integer', minimum: 1 } },
    required: ['shelf']
  }, 'URL params first, then svc.params')
})

t.test('params from several route schemas: path, query, body in order; defaults optional; extras as the body says', async (t) => {
  const { input, client } = await toolsOf(t, (app) => {
    app.post('/orders/:id', {
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
        body: Type.Object({
          lines: Type.Array(Type.Ref('Product'), { minItems: 1 }),
          email: Type.String({ format: 'email' }),
          priority: Type.Union([Type.Literal('low'), Type.Literal('high')], { default: 'low' })
        }, { additionalProperties: false })
      },
      svc: { name: 'orders.place', description: 'Place an order' }
    }, async (request) => ({ id: (request.params as { id: number }).id, body: request.body }))
  })
  const schema = input('orders_place')
  t.same(schema, {
    $schema: DRAFT_07,
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1 },
      dryRun: { type: 'boolean' },
      lines: { type: 'array', items: { $ref: '#/$defs/Product' }, minItems: 1 },
      email: { type: 'string', format: 'email' },
      priority: { default: 'low', anyOf: [{ type: 'string', const: 'low' }, { type: 'string', const: 'high' }] }
    },
    required: ['id', 'lines', 'email'],
    additionalProperties: false,
    $defs: {
      Product: { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number', minimum: 0 } }, required: ['sku', 'price'] }
    }
  })
  const validate = compileInputSchema({ name: 'orders_place', inputSchema: schema as Tool['inputSchema'] })
  const order = { id: 7, lines: [{ sku: 'mug', price: 8 }], email: 'a@b.example' }
  t.ok(validate(order))
  t.notOk(validate({ ...order, email: 'nope' }), 'the format is kept')
  t.notOk(validate({ ...order, lines: [{ sku: 'mug', price: -1 }] }), 'the registered type\'s own bounds apply')
  const placed = await client.callTool({ name: 'orders_place', arguments: { ...order, dryRun: true } })
  t.same(textJson(placed), { id: 7, body: { lines: [{ sku: 'mug', price: 8 }], email: 'a@b.example', priority: 'low' } }, 'each param goes to its place')
})

t.test('references: shared schemas, recursive schemas, pointers into the schema itself, colliding names', async (t) => {
  const Tree = Type.Recursive((This) => Type.Object({ name: Type.String(), children: Type.Array(This) }))
  const { input, client } = await toolsOf(t, (app) => {
    app.addSchema({ $id: 'Address', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    app.addSchema({ $id: 'urn:shop:money', type: 'number', minimum: 0 })
    app.addSchema({ $id: 'urn_shop_money', type: 'integer' })
    app.post('/gifts', {
      schema: {
        body: {
          type: 'object',
          definitions: { note: { type: 'string', maxLength: 20 } },
          properties: {
            to: { type: 'array', items: { $ref: 'Address#' } },
            notes: { type: 'array', items: { $ref: '#/definitions/note' } },
            amounts: { type: 'array', items: { anyOf: [{ $ref: 'urn:shop:money' }, { $ref: 'urn_shop_money' }] } },
            tree: Tree
          }
        }
      },
      svc: { description: 'Send gifts' }
    }, async (request) => request.body)
  })
  const schema = input('gifts') as Record<string, any>
  t.same(schema.properties.to, { type: 'array', items: { $ref: '#/$defs/Address' } })
  t.same(schema.properties.notes, { type: 'array', items: { $ref: '#/$defs/body/definitions/note' } }, 'a pointer into the body schema')
  t.same(schema.properties.amounts.items.anyOf, [{ $ref: '#/$defs/urn_shop_money' }, { $ref: '#/$defs/urn_shop_money_2' }], 'two ids, two keys')
  t.same(schema.properties.tree, { $ref: '#/$defs/T0' })
  t.same(schema.$defs.T0, {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/T0' } } },
    required: ['name', 'children']
  }, 'a recursive schema refers to its own definition')
  t.same(schema.$defs.Address, { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
  t.same(schema.$defs.urn_shop_money, { type: 'number', minimum: 0 })
  t.same(schema.$defs.urn_shop_money_2, { type: 'integer' })
  t.same(schema.$defs.body.properties.notes, schema.properties.notes, 'the body schema, copied once for its pointers')
  const validate = compileInputSchema({ name: 'gifts', inputSchema: schema as Tool['inputSchema'] })
  const gift = { to: [{ city: 'Lyon' }], notes: ['hi'], amounts: [1.5], tree: { name: 'a', children: [{ name: 'b', children: [] }] } }
  t.ok(validate(gift))
  t.notOk(validate({ ...gift, to: [{}] }))
  t.notOk(validate({ ...gift, notes: ['a note that is far too long'] }), 'the pointer resolves to the same constraint')
  t.notOk(validate({ ...gift, tree: { name: 'a', children: [{ children: [] }] } }), 'the recursion holds')
  t.same(textJson(await client.callTool({ name: 'gifts', arguments: gift })), gift, 'the route accepts what the schema accepts')
})

t.test('what the plugin cannot see stays the route\'s to check; data keywords are copied as data', async (t) => {
  const weird = JSON.parse('{"__proto__": {"type": "string"}, "$id": {"type": "string"}, "$ref": {"type": "string"}}')
  const { input } = await toolsOf(t, (app) => {
    app.register(async (child) => {
      child.addSchema({ $id: 'Local', type: 'string' })
      child.post('/local', {
        schema: {
          body: {
            type: 'object',
            definitions: { money: { $id: '#money', type: 'number' } },
            properties: {
              tags: { type: 'array', items: { $ref: 'Local#' } },
              price: { type: 'array', items: { $ref: '#money' } },
              kind: { type: 'object', enum: [{ $ref: 'Nope' }, { plain: true }], examples: [{ $id: 'not-an-id' }, 10n, () => 1], description: undefined },
              odd: { type: 'object', properties: weird }
            }
          }
        },
        svc: { description: 'Local schemas' }
      }, ok)
    })
  })
  const properties = (input('local') as Record<string, any>).properties
  t.same(properties.tags, { type: 'array', items: { $comment: 'The route also checks this value against "Local#".' } }, 'a schema of a child context')
  t.same(properties.price, { type: 'array', items: { $comment: 'The route also checks this value against "#money".' } }, 'a named anchor')
  t.same(properties.kind, { type: 'object', enum: [{ $ref: 'Nope' }, { plain: true }], examples: [{ $id: 'not-an-id' }] }, 'data is data; what JSON cannot carry is left out')
  t.same(Object.keys(properties.odd.properties), ['__proto__', '$id', '$ref'], 'property names that look like keywords are names')
})

t.test('annotations, all four on every tool: from the hints when declared, else from the method', async (t) => {
  const { tools } = await toolsOf(t, (app) => {
    app.get('/both', { svc: { description: 'Both hints', hints: { sideEffects: false, idempotent: true } } }, ok)
    app.post('/writes', { svc: { description: 'Side effects only', hints: { sideEffects: true } } }, ok)
    app.put('/again', { svc: { description: 'Idempotent only', hints: { idempotent: false } } }, ok)
    app.delete('/gone', { svc: { description: 'A delete that says it is read-only', hints: { sideEffects: false } } }, ok)
    for (const method of ['get', 'head', 'put', 'delete', 'post', 'patch'] as const) app[method](`/${method}`, { svc: { name: `no.${method}`, description: 'No hints' } }, ok)
  })
  const hints = (readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean) => ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false })
  t.same(tools.get('both')?.annotations, hints(true, false, true))
  t.same(tools.get('writes')?.annotations, hints(false, false, false), 'a POST is not destructive')
  t.same(tools.get('again')?.annotations, hints(false, false, false), 'declared hints win over the method')
  t.same(tools.get('gone')?.annotations, hints(true, false, true), 'read-only is never destructive')
  t.same(tools.get('no_get')?.annotations, hints(true, false, true))
  t.same(tools.get('no_head')?.annotations, hints(true, false, true))
  t.same(tools.get('no_put')?.annotations, hints(false, false, true))
  t.same(tools.get('no_delete')?.annotations, hints(false, true, true))
  t.same(tools.get('no_post')?.annotations, hints(false, false, false))
  t.same(tools.get('no_patch')?.annotations, hints(false, false, false))
  t.equal(tools.get('no_patch')?.title, 'No patch', 'a title from the name')
})

t.test('outputSchema: the route\'s response schema when it is an object, as far as the serializer holds a result to it, and structuredContent conforms', async (t) => {
  const { tools, client } = await toolsOf(t, (app) => {
    app.get('/item', { svc: { description: 'An item' }, schema: { response: { 200: Type.Ref('Product') } } }, async () => ({ sku: 'a', price: 2, secret: 'dropped by the serializer' }))
    app.get('/count', { svc: { description: 'A count' }, schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } }, async () => ({ n: 3 }))
    app.get('/basket', { svc: { description: 'Products' }, schema: { response: { 200: Type.Object({ items: Type.Array(Type.Ref('Product')) }) } } }, async () => ({ items: [{ sku: 'b', price: 1 }] }))
    app.get('/list', { svc: { description: 'A list' }, schema: { response: { 200: { type: 'array', items: { type: 'string' } } } } }, async () => ['a'])
    app.get('/none', { svc: { description: 'No response schema' } }, async () => ({ any: 1 }))
    // What Fastify's serializer does not check: the official demo's tasks answer assigned_user_id 0 against minimum 1.
    app.get('/task', {
      svc: { description: 'A task' },
      schema: {
        response: {
          200: Type.Object({
            assigned_user_id: Type.Integer({ minimum: 1 }),
            status: Type.Unsafe<string>({ type: 'string', enum: ['open', 'done'] }),
            tags: Type.Array(Type.String({ pattern: '^#' }), { maxItems: 1 }),
            kind: Type.Literal('task'),
            span: Type.Tuple([Type.String({ format: 'date' }), Type.Number({ maximum: 9 })]),
            size: Type.Union([Type.String({ maxLength: 1 }), Type.Number()])
          }, { additionalProperties: false })
        }
      }
    }, async () => ({ assigned_user_id: 0, status: 'archived', tags: ['a', 'b'], kind: 'task', span: ['soon', 12], size: 3 }))
    // A shared schema whose $id is also the name of a keyword left out.
    app.addSchema({ $id: 'format', type: 'object', properties: { code: { type: 'string', maxLength: 2 } } })
    app.get('/layout', { svc: { description: 'A layout' }, schema: { response: { 200: { type: 'object', properties: { format: { $ref: 'format#' } } } } } }, async () => ({ format: { code: 'long' } }))
  })
  const layout = tools.get('layout')?.outputSchema as { properties: { format: { $ref: string } }, $defs: Record<string, unknown> }
  t.same(layout.$defs[layout.properties.format.$ref.replace('#/$defs/', '')], { type: 'object', properties: { code: { type: 'string' } } }, 'a definition named like a keyword is kept, without what the serializer does not check')
  t.same((await client.callTool({ name: 'layout', arguments: {} })).structuredContent, { format: { code: 'long' } })
  t.same(tools.get('task')?.outputSchema, {
    $schema: DRAFT_07,
    type: 'object',
    required: ['assigned_user_id', 'status', 'tags', 'kind', 'span', 'size'],
    additionalProperties: false,
    properties: {
      assigned_user_id: { type: 'integer' },
      status: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      kind: { const: 'task', type: 'string' },
      span: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
      size: { anyOf: [{ type: 'string' }, { type: 'number' }] }
    }
  }, 'types, properties and required are kept; bounds, formats, patterns and allowed values are not, the serializer sends what the route gave')
  t.same((await client.callTool({ name: 'task', arguments: {} })).structuredContent, { assigned_user_id: 0, status: 'archived', tags: ['a', 'b'], kind: 'task', span: ['soon', 12], size: 3 }, 'and the client takes the result')
  t.same(tools.get('count')?.outputSchema, { $schema: DRAFT_07, type: 'object', properties: { n: { type: 'integer' } } })
  const item = tools.get('item')?.outputSchema as Record<string, unknown>
  t.match(item, { $schema: DRAFT_07, type: 'object', required: ['sku', 'price'], properties: { sku: { type: 'string' }, price: { type: 'number' } } }, 'a response that is a reference is that definition')
  t.notOk('minimum' in (item.properties as { price: object }).price, 'its bounds left out')
  const basket = tools.get('basket')?.outputSchema as { properties: { items: { items: { $ref: string } } }, $defs: Record<string, unknown> }
  t.match(basket.$defs[basket.properties.items.items.$ref.replace('#/$defs/', '')], { type: 'object', properties: { sku: { type: 'string' } } }, 'references inside go under $defs')
  t.same((await client.callTool({ name: 'basket', arguments: {} })).structuredContent, { items: [{ sku: 'b', price: 1 }] })
  t.equal(tools.get('list')?.outputSchema, undefined, 'MCP takes object output schemas only')
  t.equal(tools.get('none')?.outputSchema, undefined)
  const result = await client.callTool({ name: 'item', arguments: {} })
  t.same(result.structuredContent, { sku: 'a', price: 2 }, 'the client validated it against the output schema')
  const validate = compileInputSchema({ name: 'item', inputSchema: item } as unknown as Tool)
  t.ok(validate(result.structuredContent), 'it conforms')
})

t.test('results: JSON text, text, nothing, images and audio as MCP content, other bytes as base64', async (t) => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex')
  const { client } = await toolsOf(t, (app) => {
    app.get('/logo', { svc: { description: 'Logo' } }, async (request, reply) => reply.type('image/png').send(png))
    app.get('/chime', { svc: { description: 'Chime' } }, async (request, reply) => reply.type('audio/mpeg').send(Buffer.from('ID3')))
    app.get('/archive', { svc: { description: 'Archive' } }, async (request, reply) => reply.type('application/zip').send(Buffer.from('PK')))
    app.post('/touch', { svc: { description: 'Touch' } }, async (request, reply) => reply.code(204).send())
    app.get('/greeting', { svc: { description: 'Greeting' } }, async () => 'hello')
  })
  t.same((await client.callTool({ name: 'logo', arguments: {} })).content, [{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' }])
  t.same((await client.callTool({ name: 'chime', arguments: {} })).content, [{ type: 'audio', data: Buffer.from('ID3').toString('base64'), mimeType: 'audio/mpeg' }])
  t.same(textJson(await client.callTool({ name: 'archive', arguments: {} })), { encoding: 'base64', contentType: 'application/zip', result: Buffer.from('PK').toString('base64') })
  const touched = await client.callTool({ name: 'touch', arguments: {} })
  t.same(textJson(touched), null)
  t.equal(touched.structuredContent, undefined)
  t.same(textJson(await client.callTool({ name: 'greeting', arguments: {} })), 'hello')
})
