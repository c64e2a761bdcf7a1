import { describe, expect, test } from 'tstyche'
import {
  checksumOf, CommandError, createManifestClient, diffManifests, ManifestClientError, verifyManifest,
  type ChannelState, type Change, type Manifest, type ManifestClient, type ManifestExample, type ManifestField, type ManifestProperty, type ManifestDiff, type ManifestResult, type PipelineResult,
  type Progress, type ReadManifest, type ServedManifest, type SvcEvent, type VerifyResult
} from '../lib/client/index.js'
import { ManifestSchemaV05, ManifestSchemaV1, manifestJsonSchema, type ManifestV1 } from '../lib/schema.js'

describe('fastify-svc-manifest/client', () => {
  test('createManifestClient takes a URL and optional fetch and clock', () => {
    expect(createManifestClient).type.toBeCallableWith({ url: 'https://shop.example/.well-known/svc.json' })
    expect(createManifestClient).type.toBeCallableWith({ url: new URL('https://shop.example/'), fetch, now: Date.now })
    expect(createManifestClient).type.toBeCallableWith({ url: 'https://x.example', timeout: 5000, maxBodySize: 1024 })
    expect(createManifestClient).type.not.toBeCallableWith({ url: 'https://x.example', timeout: '5s' })
    expect(createManifestClient).type.not.toBeCallableWith({ fetch })
    expect(createManifestClient({ url: 'https://x.example' })).type.toBe<ManifestClient>()
  })

  test('get() resolves to the manifest and its status', () => {
    const client = createManifestClient({ url: 'https://x.example' })
    expect(client.get()).type.toBe<Promise<ManifestResult>>()
    expect(client.get({ signal: AbortSignal.timeout(1000) })).type.toBe<Promise<ManifestResult>>()
    expect(client.get).type.not.toBeCallableWith({ signal: 'abort' })
    expect<ManifestResult['status']>().type.toBe<'fetched' | 'fresh' | 'revalidated' | 'changed'>()
    expect(client.manifest).type.toBe<ReadManifest | undefined>()
    expect<ManifestResult['manifest']>().type.toBe<ReadManifest>()
    expect<ManifestResult['served']>().type.toBe<ServedManifest>()
    expect<ManifestResult['checksumMethod']>().type.toBe<'surf' | undefined>()
    expect<Manifest>().type.toBeAssignableTo<ReadManifest>()
  })

  test('execute and pipeline call commands by name', () => {
    const client = createManifestClient({ url: 'https://x.example', invokeUrl: 'https://x.example/svc' })
    expect(client.execute('search', { q: 'tea' })).type.toBe<Promise<unknown>>()
    expect(client.execute<string[]>('search', { q: 'tea' }, { token: 't', signal: AbortSignal.timeout(1) })).type.toBe<Promise<string[]>>()
    expect(client.execute).type.not.toBeCallableWith('search', 'q=tea')
    expect(client.pipeline([{ command: 'search', params: { q: 'tea' }, as: 'found' }], { token: 't', continueOnError: true })).type.toBe<Promise<PipelineResult>>()
    expect(client.pipeline).type.not.toBeCallableWith([{ params: {} }])
    expect(new CommandError({ code: 'NOT_FOUND', message: 'x', status: 404 }).status).type.toBe<number>()
  })

  test('execute follows a long-running command; stream yields its pieces and returns its result', () => {
    const client = createManifestClient({ url: 'https://x.example' })
    expect(client.execute('report', {}, { timeout: 60_000, onProgress: (progress: Progress) => progress.total })).type.toBe<Promise<unknown>>()
    expect(client.execute).type.not.toBeCallableWith('report', {}, { timeout: '1m' })
    expect<Progress>().type.toBe<{ progress: number, total?: number, message?: string }>()
    expect(client.stream('export')).type.toBe<AsyncGenerator<unknown, unknown, undefined>>()
    expect(client.stream<{ id: number }, null>('export', {}, { token: 't', signal: AbortSignal.timeout(1), onProgress: () => {} })).type.toBe<AsyncGenerator<{ id: number }, null, undefined>>()
  })

  test('paginate yields the items of every page', () => {
    const client = createManifestClient({ url: 'https://x.example' })
    expect(client.paginate('teas')).type.toBe<AsyncGenerator<unknown, void, undefined>>()
    expect(client.paginate<{ sku: string }>('teas', { tag: 'green' }, { token: 't' })).type.toBe<AsyncGenerator<{ sku: string }, void, undefined>>()
  })

  test('verify, diff and checksum take manifests', () => {
    expect(verifyManifest).type.toBeCallableWith({})
    expect(verifyManifest({})).type.toBe<VerifyResult>()
    expect(verifyManifest).type.toBeCallableWith({}, { strict: true })
    expect(verifyManifest).type.not.toBeCallableWith({}, { strict: 'yes' })
    expect<VerifyResult['checksumMethod']>().type.toBe<'surf' | undefined>()
    expect(diffManifests).type.toBeCallableWith({} as ReadManifest, {} as ServedManifest)
    expect(diffManifests).type.toBeCallableWith({} as Manifest, {} as Manifest)
    expect(diffManifests({} as Manifest, {} as Manifest)).type.toBe<ManifestDiff>()
    expect<ManifestDiff['breaking']>().type.toBe<Change[]>()
    expect(checksumOf({})).type.toBe<string>()
  })

  test('errors carry a stable code', () => {
    expect(new ManifestClientError('SVC_CLIENT_NETWORK', 'down').code).type.toBe<ManifestClientError['code']>()
    expect(ManifestClientError).type.not.toBeConstructableWith('NOT_A_CODE', 'x')
    expect<'SVC_CLIENT_TIMEOUT' | 'SVC_CLIENT_ABORTED' | 'SVC_CLIENT_REDIRECT' | 'SVC_CLIENT_BODY_TOO_LARGE'>().type.toBeAssignableTo<ManifestClientError['code']>()
  })
})

describe('event and channel streams', () => {
  const client = createManifestClient({ url: 'https://shop.example' })
  test('subscribe and watch take options and a handler, and resolve when aborted', () => {
    expect(client.subscribe({ events: ['cart.updated'], token: 't', signal: new AbortController().signal }, (event) => {
      expect(event).type.toBe<SvcEvent>()
    })).type.toBe<Promise<void>>()
    expect(client.watch('cart', 'user-1', { reconnect: { initialDelay: 100 }, idleTimeout: 1000 }, async (state) => {
      expect(state).type.toBe<ChannelState>()
    })).type.toBe<Promise<void>>()
    expect(client.subscribe).type.not.toBeCallableWith({ events: 'cart.updated' }, () => {})
    expect<SvcEvent['data']>().type.toBe<unknown>()
    expect<ChannelState['version']>().type.toBe<number>()
  })
})

describe('fastify-svc-manifest/schema', () => {
  test('the layout schemas and their JSON Schema form', () => {
    expect(manifestJsonSchema).type.toBeCallableWith('1.0')
    expect(manifestJsonSchema).type.not.toBeCallableWith('2.0')
    expect(ManifestSchemaV1.properties.svc.const).type.toBe<'1.0'>()
    expect(ManifestSchemaV05.properties.svc.const).type.toBe<'0.5.0'>()
  })

  test('the types derived from the schemas are the wire format', () => {
    expect<ManifestV1['checksum']>().type.toBe<string>()
    expect<Manifest['commands'][string]['auth']>().type.toBe<'required' | 'optional' | undefined>()
    expect<Manifest['commands'][string]['requiredScopes']>().type.toBe<string[] | undefined>()
    expect<Manifest['commands'][string]['deprecated']>().type.toBe<true | undefined>()
  })

  test('field descriptors nest: items is a field, properties are properties, which say whether they are required', () => {
    expect<ManifestProperty['required']>().type.toBe<boolean>()
    expect<ManifestField>().type.not.toHaveProperty('required')
    expect<ManifestField['items']>().type.toBe<ManifestField | undefined>()
    expect<ManifestField['properties']>().type.toBe<Record<string, ManifestProperty> | undefined>()
    expect<ManifestField['enum']>().type.toBe<unknown[] | undefined>()
    expect<ManifestField['maximum']>().type.toBe<number | undefined>()
    expect<NonNullable<Manifest['commands'][string]['params']>[string]>().type.toBe<ManifestProperty>()
    expect<NonNullable<Manifest['commands'][string]['examples']>[number]>().type.toBe<ManifestExample>()
    expect<ManifestProperty>().type.toBeAssignableWith({
      type: 'object',
      required: true,
      properties: { tags: { type: 'array', required: false, maxItems: 3, items: { type: 'string', enum: ['a', 'b'] } } }
    })
    expect<ManifestProperty>().type.not.toBeAssignableWith({ type: 'object', properties: { tags: { type: 'array' } } })
    expect<ManifestExample>().type.toBeAssignableWith({ title: 'Tea', params: { q: 'tea' }, result: [] })
  })
})
