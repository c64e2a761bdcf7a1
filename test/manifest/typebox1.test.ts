import * as TypeBox034 from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import * as TypeBox1 from 'typebox'
import type { SvcManifestOptions } from '../../lib/index.js'
import { readyApp } from '../helpers/app.js'

/** The builder calls both packages share; `Type.Ref` takes a type name in both. */
type Builder = typeof TypeBox1.Type

/** A shop described with one TypeBox package: options, types, events and commands. */
function shop (Type: Builder): { options: Partial<SvcManifestOptions>, routes: (app: FastifyInstance) => void } {
  const product = Type.Object({
    sku: Type.String({ description: 'Stock keeping unit' }),
    price: Type.Number(),
    stock: Type.Integer(),
    size: Type.Union([Type.Literal('s'), Type.Literal('m'), Type.Literal('l')]),
    note: Type.Union([Type.String(), Type.Null()])
  })
  return {
    options: {
      svc: '0.5.0',
      types: { Product: product, Sku: Type.String() },
      events: { 'cart.updated': { description: 'Cart changed', data: Type.Object({ items: Type.Array(Type.Ref('Product')), total: Type.Number() }) } },
      channels: { cart: { description: 'Cart state' } }
    },
    routes: (app) => {
      app.get('/search', {
        svc: {
          description: 'Search',
          params: Type.Object({ q: Type.String({ description: 'Words' }), limit: Type.Optional(Type.Integer({ default: 10, minimum: 1 })), sku: Type.Optional(Type.Ref('Sku')) }),
          returns: Type.Array(Type.Ref('Product')),
          hints: { idempotent: true, sideEffects: false }
        }
      }, async () => [])
      app.put('/carts/:id/items', {
        schema: {
          params: Type.Object({ id: Type.String() }),
          body: Type.Object({ sku: Type.String(), quantity: Type.Optional(Type.Integer({ default: 1 })) }),
          response: { 200: Type.Ref('Product') }
        },
        svc: { description: 'Set an item', tags: ['cart'] }
      }, async () => ({ sku: 'a', price: 1, stock: 1, size: 's', note: null }))
    }
  }
}

async function served (t: Test, Type: Builder): Promise<{ app: FastifyInstance, body: string }> {
  const { options, routes } = shop(Type)
  const app = await readyApp(t, options, routes)
  const response = await app.inject({ method: 'GET', url: '/.well-known/svc.json' })
  if (response.statusCode !== 200) throw new Error(`manifest answered ${response.statusCode}: ${response.body}`)
  return { app, body: response.body.replace(/"updatedAt":"[^"]*"/, '"updatedAt":""') }
}

t.test('typebox 1.x schemas give the same manifest as @sinclair/typebox 0.34', async (t) => {
  const legacy = await served(t, TypeBox034.Type as unknown as Builder)
  const current = await served(t, TypeBox1.Type)
  t.equal(current.body, legacy.body)
  t.equal(current.app.svc.checksum, legacy.app.svc.checksum)
  const manifest = JSON.parse(current.body)
  t.same(manifest.commands.search.params, {
    limit: { type: 'number', required: false, default: 10, minimum: 1 },
    q: { type: 'string', required: true, description: 'Words' },
    sku: { type: 'Sku', required: false }
  })
  t.same(manifest.commands['carts.items'].returns, { type: 'Product' })
  t.same(manifest.types.Product.properties, {
    sku: { type: 'string', required: true, description: 'Stock keeping unit' },
    price: { type: 'number', required: true },
    stock: { type: 'number', required: true },
    size: { type: 'string', required: true, enum: ['s', 'm', 'l'] },
    note: { type: 'string', required: true }
  })
})

t.test('typebox 1.x schemas validate requests', async (t) => {
  const { app } = await served(t, TypeBox1.Type)
  t.equal((await app.inject({ method: 'GET', url: '/search' })).statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/search?q=a&limit=0' })).statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/search?q=a' })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: '/carts/1/items', payload: {} })).statusCode, 400)
  t.equal((await app.inject({ method: 'PUT', url: '/carts/1/items', payload: { sku: 'a' } })).statusCode, 200)
})
