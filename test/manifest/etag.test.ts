import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import canonicalize from 'canonicalize'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { checksumOf } from '../../lib/index.js'
import { readyApp } from '../helpers/app.js'

const MANIFEST = '/.well-known/svc.json'

function shopRoutes (app: FastifyInstance): void {
  app.get('/search', { svc: { description: 'Search the catalogue', params: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Number({ default: 10 })) }), tags: ['catalog'], hints: { idempotent: true, sideEffects: false } } }, async () => [])
  app.post('/cart/items', { svc: { description: 'Ajouter au panier — "vite"', params: Type.Object({ sku: Type.String(), price: Type.Number({ default: 1e21 }) }) } }, async () => ({}))
}

function sha256 (text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

t.test('checksum: SHA-256 of the RFC 8785 form of commands, recomputable from the body', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const response = await app.inject({ method: 'GET', url: MANIFEST })
  const body = response.json()
  const expected = sha256(canonicalize(body.commands) as string)
  t.equal(body.checksum, expected)
  t.match(body.checksum, /^[0-9a-f]{64}$/, 'lowercase hex')
  t.equal(app.svc.checksum, expected)
  t.equal(checksumOf(body.commands), expected, 'the exported checksumOf agrees')
})

t.test('checksum of an empty commands map', async (t) => {
  const app = await readyApp(t)
  const body = (await app.inject({ method: 'GET', url: MANIFEST })).json()
  t.equal(body.checksum, sha256('{}'))
})

t.test('the checksum covers commands only', async (t) => {
  const base = await readyApp(t, {}, shopRoutes)
  const otherMeta = await readyApp(t, { name: 'Other', version: '9.9.9', types: { T: Type.String() }, events: { 'e.f': { description: 'E' } } }, shopRoutes)
  t.equal(otherMeta.svc.checksum, base.svc.checksum, 'name, version, types and events do not change it')
  const otherCommands = await readyApp(t, {}, (app) => {
    shopRoutes(app)
    app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  })
  t.not(otherCommands.svc.checksum, base.svc.checksum, 'a new command changes it')
  const otherDescription = await readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search the catalogue!', params: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Number({ default: 10 })) }), tags: ['catalog'], hints: { idempotent: true, sideEffects: false } } }, async () => [])
    app.post('/cart/items', { svc: { description: 'Ajouter au panier — "vite"', params: Type.Object({ sku: Type.String(), price: Type.Number({ default: 1e21 }) }) } }, async () => ({}))
  })
  t.not(otherDescription.svc.checksum, base.svc.checksum, 'a changed description changes it')
})

t.test('GET: 200 with the body and its headers', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const response = await app.inject({ method: 'GET', url: MANIFEST })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(response.headers.etag, `"${app.svc.checksum}"`)
  t.equal(response.headers['cache-control'], 'public, max-age=300')
  t.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body))
})

t.test('If-None-Match variants that match give 304 with etag and cache-control and no body', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const sum = app.svc.checksum
  const matching = [
    `"${sum}"`,
    sum,
    `W/"${sum}"`,
    `W/${sum}`,
    '*',
    ` "${sum}" `,
    `"other", "${sum}"`,
    `"aaa",W/"${sum}",  "bbb"`,
    `, ,"${sum}",`,
    `${sum},other`
  ]
  for (const method of ['GET', 'HEAD'] as const) {
    for (const ifNoneMatch of matching) {
      const response = await app.inject({ method, url: MANIFEST, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(response.statusCode, 304, `${method} ${ifNoneMatch}`)
      t.equal(response.headers.etag, `"${sum}"`)
      t.equal(response.headers['cache-control'], 'public, max-age=300')
      t.equal(response.body, '', 'no body')
      t.notOk(response.headers['content-type'], 'no content type')
    }
  }
})

t.test('If-None-Match variants that do not match give the full 200', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const sum = app.svc.checksum
  const mismatching = [
    '',
    '""',
    '"0000"',
    `"${sum.toUpperCase()}"`,
    `"${sum.slice(0, -1)}"`,
    `"${sum}x"`,
    `'${sum}'`,
    `"${sum}`,
    `w/"${sum}"`,
    '"a", "b"',
    '**',
    `"${sum}"; "other"`,
    '"nope", *',
    `"x,${sum},y"`,
    `"${sum}" x`
  ]
  for (const method of ['GET', 'HEAD'] as const) {
    for (const ifNoneMatch of mismatching) {
      const response = await app.inject({ method, url: MANIFEST, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(response.statusCode, 200, `${method} ${JSON.stringify(ifNoneMatch)}`)
      t.equal(response.headers.etag, `"${sum}"`)
      if (method === 'GET') t.equal(response.json().checksum, sum)
    }
  }
})

t.test('a checksum copied from the body works as If-None-Match', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const first = await app.inject({ method: 'GET', url: MANIFEST })
  const second = await app.inject({ method: 'GET', url: MANIFEST, headers: { 'if-none-match': first.json().checksum } })
  t.equal(second.statusCode, 304)
  const third = await app.inject({ method: 'GET', url: MANIFEST, headers: { 'if-none-match': first.headers.etag as string } })
  t.equal(third.statusCode, 304, 'and so does the ETag header')
})

t.test('HEAD of the manifest: the GET headers, no body', async (t) => {
  const app = await readyApp(t, { maxAge: 42 }, shopRoutes)
  const get = await app.inject({ method: 'GET', url: MANIFEST })
  const head = await app.inject({ method: 'HEAD', url: MANIFEST })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  for (const name of ['content-type', 'etag', 'cache-control', 'content-length']) {
    t.equal(head.headers[name], get.headers[name], name)
  }
})

t.test('HEAD is served even when the app turns automatic HEAD routes off', async (t) => {
  const app = await readyApp(t, {}, shopRoutes, { exposeHeadRoutes: false })
  const head = await app.inject({ method: 'HEAD', url: MANIFEST })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.etag, `"${app.svc.checksum}"`)
  t.equal((await app.inject({ method: 'HEAD', url: MANIFEST, headers: { 'if-none-match': app.svc.checksum } })).statusCode, 304)
})

t.test('only GET and HEAD: other methods are not served', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
    const response = await app.inject({ method, url: MANIFEST, headers: { 'if-none-match': '*' } })
    t.equal(response.statusCode, 404, method)
    t.not(response.headers.etag, `"${app.svc.checksum}"`)
  }
})

t.test('maxAge sets cache-control on 200 and 304', async (t) => {
  const app = await readyApp(t, { maxAge: 0 }, shopRoutes)
  t.equal((await app.inject({ method: 'GET', url: MANIFEST })).headers['cache-control'], 'public, max-age=0')
  t.equal((await app.inject({ method: 'GET', url: MANIFEST, headers: { 'if-none-match': '*' } })).headers['cache-control'], 'public, max-age=0')
})

t.test('a custom path serves the same thing, 304 included', async (t) => {
  const app = await readyApp(t, { path: '/meta/svc.json' }, shopRoutes)
  const response = await app.inject({ method: 'GET', url: '/meta/svc.json' })
  t.equal(response.statusCode, 200)
  t.equal(response.headers.etag, `"${app.svc.checksum}"`)
  t.equal((await app.inject({ method: 'HEAD', url: '/meta/svc.json', headers: { 'if-none-match': response.headers.etag as string } })).statusCode, 304)
  t.equal((await app.inject({ method: 'GET', url: MANIFEST })).statusCode, 404)
})

t.test('every response serves the same precomputed bytes', async (t) => {
  const app = await readyApp(t, {}, shopRoutes)
  const first = await app.inject({ method: 'GET', url: MANIFEST })
  const second = await app.inject({ method: 'GET', url: MANIFEST })
  t.equal(second.body, first.body)
  t.equal(second.headers.etag, first.headers.etag)
})
