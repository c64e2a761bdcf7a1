import Fastify, { type RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Type as Type1 } from 'typebox'
import { describe, expect, test } from 'tstyche'
import svcManifest, {
  checksumOf, svcManifest as named, type Manifest, type ManifestExample, type ManifestField, type ManifestProperty, type SvcRouteOptions,
  type SvcManifestOptions
} from '../lib/index.js'
import type * as client from '../lib/client/index.js'

const app = Fastify()
const options: SvcManifestOptions = { name: 'Shop', description: 'Demo', version: '1.0.0', baseUrl: 'https://shop.example' }

describe('registering the plugin', () => {
  test('default and named exports are the same plugin', () => {
    expect(named).type.toBe(svcManifest)
  })

  test('the four required options are enforced', () => {
    expect(app.register).type.toBeCallableWith(svcManifest, options)
    expect(app.register).type.not.toBeCallableWith(svcManifest, { name: 'Shop' })
  })

  test('layout and auth are checked', () => {
    expect<SvcManifestOptions['svc']>().type.toBe<'1.0' | '0.5.0' | undefined>()
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, auth: { type: 'basic', description: 'x' } })
    expect<SvcManifestOptions>().type.toBeAssignableWith({
      ...options,
      auth: { type: 'bearer' as const, description: 'JWT', verify: async (token: string) => token === 'ok' && { sub: 'u1' } }
    })
  })

  test('realtime, auth.subject and channel authorize', () => {
    expect<SvcManifestOptions>().type.toBeAssignableWith({ ...options, realtime: { redis: 'redis://127.0.0.1:6379', heartbeat: 15, maxBufferBytes: 1024 } })
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, realtime: { heartbeat: '15' } })
    expect<SvcManifestOptions>().type.toBeAssignableWith({
      ...options,
      auth: { type: 'bearer' as const, description: 'JWT', subject: (credential: { user: { id: string } }) => credential.user.id },
      svc: '0.5.0' as const,
      channels: { cart: { description: 'Cart', authorize: async (credential: { sub: string }, key: string) => credential.sub === key } }
    })
  })

  test('requireDescriptions is a boolean', () => {
    expect<SvcManifestOptions>().type.toBeAssignableWith({ ...options, requireDescriptions: true })
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, requireDescriptions: 'yes' })
  })

  test('discovery is a boolean', () => {
    expect<SvcManifestOptions>().type.toBeAssignableWith({ ...options, discovery: true })
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, discovery: 'on' })
  })

  test('mcp is a boolean or { path }', () => {
    expect<SvcManifestOptions>().type.toBeAssignableWith({ ...options, mcp: true })
    expect<SvcManifestOptions>().type.toBeAssignableWith({ ...options, mcp: { path: '/agents/mcp' } })
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, mcp: '/mcp' })
    expect<SvcManifestOptions>().type.not.toBeAssignableWith({ ...options, mcp: { path: 1 } })
  })
})

describe('the svc route option', () => {
  test('is accepted on shorthand routes and route()', () => {
    expect(app.get).type.toBeCallableWith('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }) } }, async () => [])
    expect(app.route).type.toBeCallableWith({ method: 'POST', url: '/cart', svc: { description: 'Add', auth: 'required' }, handler: async () => ({}) })
    expect(app.get).type.toBeCallableWith('/admin', { svc: { description: 'Admin', auth: 'hidden', scopes: ['admin'] } }, async () => ({}))
    expect(app.get).type.not.toBeCallableWith('/admin', { svc: { description: 'Admin', auth: 'secret' } }, async () => ({}))
  })

  test('accepts schemas from TypeBox 0.34, TypeBox 1.x and plain JSON Schema', () => {
    expect<SvcRouteOptions>().type.toBeAssignableWith({ description: 'a', params: Type.Object({ q: Type.String() }) })
    expect<SvcRouteOptions>().type.toBeAssignableWith({ description: 'a', params: Type1.Object({ q: Type1.String() }) })
    expect<SvcRouteOptions>().type.toBeAssignableWith({ description: 'a', returns: { type: 'array', items: { type: 'string' } } })
  })

  test('takes the description from the route schema when it has none', () => {
    expect<SvcRouteOptions>().type.toBeAssignableWith({})
    expect<SvcRouteOptions>().type.toBeAssignableWith({ name: 'x' })
  })

  test('rejects wrong field types', () => {
    expect<SvcRouteOptions>().type.not.toBeAssignableWith({ name: 7 })
    expect<SvcRouteOptions>().type.not.toBeAssignableWith({ description: 7 })
    expect<SvcRouteOptions>().type.not.toBeAssignableWith({ description: 'a', auth: 'optional' })
    expect<SvcRouteOptions>().type.not.toBeAssignableWith({ description: 'a', hints: { idempotent: 'yes' } })
    expect<SvcRouteOptions>().type.not.toBeAssignableWith({ description: 'a', tags: 'catalog' })
  })

  test('is typed in onRoute', () => {
    app.addHook('onRoute', (routeOptions: RouteOptions) => {
      expect(routeOptions.svc).type.toBe<SvcRouteOptions | true | undefined>()
    })
  })
})

describe('the app.svc decorator and the request', () => {
  test('registry methods and the built manifest', () => {
    expect(app.svc.type).type.toBeCallableWith('Product', Type.Object({ sku: Type.String() }))
    expect(app.svc.event).type.toBeCallableWith('cart.updated', { description: 'Changed' })
    expect(app.svc.event).type.not.toBeCallableWith('cart.updated', { data: Type.Object({}) })
    expect(app.svc.channel).type.toBeCallableWith('cart', { description: 'Live cart' })
    expect(app.svc.manifest).type.toBe<Readonly<Manifest>>()
    expect(app.svc.publicManifest).type.toBe<Readonly<Manifest>>()
    expect(app.svc.checksum).type.toBe<string>()
  })

  test('the credential is on the request', () => {
    app.get('/me', { svc: { description: 'Me', auth: 'required' } }, async (request) => {
      expect(request.svcCredential).type.toBe<unknown>()
      return null
    })
  })

  test('request.svc: the call\'s signal and progress; svc.stream, svc.timeout and invoke.timeout', () => {
    app.get('/job', { svc: { description: 'Job', stream: true, timeout: 60_000 } }, async (request) => {
      expect(request.svc.signal).type.toBe<AbortSignal>()
      expect(request.svc.progress).type.toBeCallableWith(1, { total: 2, message: 'half' })
      expect(request.svc.progress).type.not.toBeCallableWith('1')
      return null
    })
    expect(app.register).type.toBeCallableWith(svcManifest, { ...options, invoke: { timeout: 0 } })
  })

  test('svc.rateLimit and svc.paginated', () => {
    expect(app.get).type.toBeCallableWith('/teas', { svc: { description: 'Teas', paginated: true, rateLimit: { maxRequests: 5, windowMs: 1000 } } }, async () => null)
    expect(app.get).type.toBeCallableWith('/articles', { svc: { description: 'Articles', paginated: { style: 'offset', items: 'articles', total: 'articlesCount' } } }, async () => null)
    expect(app.get).type.not.toBeCallableWith('/teas', { svc: { description: 'Teas', paginated: { style: 'page' } } }, async () => null)
  })

  test('checksumOf takes the commands map', () => {
    expect(checksumOf).type.toBeCallableWith({ search: { description: 'Search' } })
    expect(checksumOf({})).type.toBe<string>()
  })
})

describe('events and channels', () => {
  test('emit takes a declared name, a payload and an optional subject; publish resolves to the version', () => {
    expect(app.svc.emit).type.toBeCallableWith('cart.updated', { items: [] })
    expect(app.svc.emit).type.toBeCallableWith('cart.updated', { items: [] }, { to: 'user-1' })
    expect(app.svc.emit).type.not.toBeCallableWith('cart.updated', {}, { to: 1 })
    expect(app.svc.emit('news')).type.toBe<void>()
    expect(app.svc.publish('cart', 'user-1', { items: [] })).type.toBe<Promise<number>>()
  })
})

describe('the manifest\'s field descriptors', () => {
  test('the plugin exports the same descriptor types as the client', () => {
    expect<ManifestField>().type.toBe<client.ManifestField>()
    expect<ManifestProperty>().type.toBe<client.ManifestProperty>()
    expect<ManifestExample>().type.toBe<client.ManifestExample>()
    expect<Manifest['types'][string]>().type.toBe<ManifestField>()
    expect<NonNullable<Manifest['events'][string]['data']>[string]>().type.toBe<ManifestProperty>()
  })
})
