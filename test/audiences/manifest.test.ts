import { Type } from '@sinclair/typebox'
import t from 'tap'
import { checksumOf, verifyManifest } from '../../lib/client/index.js'
import { audienceShop, withToken } from '../helpers/audiences.js'

const PATH = '/.well-known/svc.json'

t.test('without a credential, the manifest is the public view: no hidden command, its own checksum, public and varying', async (t) => {
  const app = await audienceShop(t)
  const response = await app.inject({ url: PATH })
  t.equal(response.statusCode, 200)
  const manifest = response.json()
  t.same(Object.keys(manifest.commands), ['catalog.list', 'orders.list'])
  t.equal(manifest.checksum, checksumOf(manifest.commands), 'the checksum verifies the view')
  t.ok(verifyManifest(manifest, { strict: true }).ok)
  t.equal(response.headers.etag, `"${manifest.checksum}"`)
  t.equal(response.headers['cache-control'], 'public, max-age=300')
  t.equal(response.headers.vary, 'authorization')
  t.not(manifest.checksum, app.svc.checksum, 'app.svc.checksum is the complete manifest\'s')
  t.same(Object.keys(app.svc.manifest.commands), ['admin.stats', 'catalog.list', 'ops.restart', 'orders.list'], 'app.svc.manifest has every command')
  t.equal(app.svc.manifest.commands['admin.stats'].auth, 'required', 'a hidden command is served as required')
  t.same(app.svc.publicManifest, manifest, 'app.svc.publicManifest is what a caller without a credential reads')
})

t.test('a credential gets its own view, private; views differ by what each credential may see', async (t) => {
  const app = await audienceShop(t)
  const admin = await app.inject({ url: PATH, headers: withToken('admin-token') })
  t.equal(admin.statusCode, 200)
  const adminView = admin.json()
  t.same(Object.keys(adminView.commands), ['admin.stats', 'catalog.list', 'ops.restart', 'orders.list'])
  t.equal(adminView.checksum, checksumOf(adminView.commands))
  t.equal(adminView.checksum, app.svc.checksum, 'the view with every command is the complete manifest')
  t.same(adminView.commands['admin.stats'], { description: 'Sales statistics', auth: 'required', requiredScopes: ['admin'] })
  t.equal(admin.headers.etag, `"${adminView.checksum}"`)
  t.equal(admin.headers['cache-control'], 'private, max-age=300')
  t.equal(admin.headers.vary, 'authorization')
  const ops = (await app.inject({ url: PATH, headers: withToken('ops-token') })).json()
  t.same(Object.keys(ops.commands), ['catalog.list', 'ops.restart', 'orders.list'])
  t.equal(ops.checksum, checksumOf(ops.commands))

  const publicResponse = await app.inject({ url: PATH })
  const user = await app.inject({ url: PATH, headers: withToken('user-token') })
  t.equal(user.body, publicResponse.body, 'a view equal to the public one is the public bytes')
  t.equal(user.headers.etag, publicResponse.headers.etag)
  t.equal(user.headers['cache-control'], 'private, max-age=300', 'still private')
})

t.test('304, HEAD and 401 per view, each with vary', async (t) => {
  const app = await audienceShop(t)
  const admin = await app.inject({ url: PATH, headers: withToken('admin-token') })
  const etag = admin.headers.etag as string
  const notModified = await app.inject({ url: PATH, headers: { ...withToken('admin-token'), 'if-none-match': etag } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.body, '')
  t.same([notModified.headers.etag, notModified.headers['cache-control'], notModified.headers.vary], [etag, 'private, max-age=300', 'authorization'])
  const publicTag = (await app.inject({ url: PATH })).headers.etag as string
  t.equal((await app.inject({ url: PATH, headers: { 'if-none-match': etag } })).statusCode, 200, 'the admin ETag is not the public view\'s')
  const publicNotModified = await app.inject({ url: PATH, headers: { 'if-none-match': publicTag } })
  t.equal(publicNotModified.statusCode, 304)
  t.equal(publicNotModified.headers.vary, 'authorization')

  const head = await app.inject({ method: 'HEAD', url: PATH, headers: withToken('admin-token') })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], String(admin.rawPayload.length))
  t.same([head.headers.etag, head.headers.vary], [etag, 'authorization'])

  for (const authorization of ['Bearer wrong-token', 'Bearer', 'bearer a b']) {
    const refused = await app.inject({ url: PATH, headers: { authorization } })
    t.equal(refused.statusCode, 401, `${authorization}: refused, never a silent public view`)
    t.equal(refused.headers['www-authenticate'], 'Bearer realm="Shop", error="invalid_token"')
    t.equal(refused.headers.vary, 'authorization')
    t.equal(refused.json().code, 'FST_SVC_UNAUTHORIZED')
  }
  const headRefused = await app.inject({ method: 'HEAD', url: PATH, headers: withToken('wrong') })
  t.same([headRefused.statusCode, headRefused.headers.vary], [401, 'authorization'])

  const otherScheme = await app.inject({ url: PATH, headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } })
  t.equal(otherScheme.statusCode, 200, 'another scheme is no credential')
  t.equal(otherScheme.headers.etag, publicTag)
  t.equal(otherScheme.headers['cache-control'], 'public, max-age=300')
})

t.test('views are kept per distinct visible set, at most 64', async (t) => {
  // 70 hidden commands, each with its own scope: a credential per scope has a view of its own.
  const names = Array.from({ length: 70 }, (_, index) => `s${index}`)
  const app = await audienceShop(t, {
    options: { auth: { type: 'bearer', description: 'Scoped tokens', verify: (token) => ({ sub: token, scope: token }) } },
    routes: (app) => {
      for (const scope of names) app.get(`/hidden/${scope}`, { svc: { name: `hidden.${scope}`, description: `Hidden ${scope}`, auth: 'hidden', scopes: [scope] } }, async () => scope)
    }
  })
  const etags = new Set<string>()
  for (const scope of names) {
    const response = await app.inject({ url: PATH, headers: withToken(scope) })
    const commands = Object.keys(response.json().commands)
    t.ok(commands.includes(`hidden.${scope}`) && commands.filter((name) => name.startsWith('hidden.')).length === 1, `${scope} sees its own command only`)
    etags.add(response.headers.etag as string)
  }
  t.equal(etags.size, 70, 'one view per visible set')
  const again = await app.inject({ url: PATH, headers: withToken('s0') })
  t.same(Object.keys(again.json().commands).filter((name) => name.startsWith('hidden.')), ['hidden.s0'], 'a view dropped from the cache is made again, the same')
  t.equal(Object.keys(again.json().commands).length, 3)
})

t.test('with @fastify/jwt, the manifest verifies the token as a command does', async (t) => {
  const app = await audienceShop(t, { jwt: true })
  const admin = await app.inject({ url: PATH, headers: withToken(app.jwt.sign({ sub: 'root', scope: 'admin' })) })
  t.same(Object.keys(admin.json().commands), ['admin.stats', 'catalog.list', 'orders.list'])
  const expired = app.jwt.sign({ sub: 'root', scope: 'admin', iat: 1, exp: 2 })
  const refused = await app.inject({ url: PATH, headers: withToken(expired) })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers.vary, 'authorization')
})

t.test('with no hidden command the manifest is served as before: no vary, a credential changes nothing', async (t) => {
  const app = await audienceShop(t, { hidden: false })
  const anonymous = await app.inject({ url: PATH })
  t.equal(anonymous.headers.vary, undefined)
  t.equal(anonymous.headers['cache-control'], 'public, max-age=300')
  t.equal(anonymous.json().checksum, app.svc.checksum)
  let verified = 0
  const counting = await audienceShop(t, {
    hidden: false,
    options: { auth: { type: 'bearer', description: 'Counting', verify: () => { verified++; return { sub: 'x' } } } }
  })
  const withCredential = await counting.inject({ url: PATH, headers: withToken('admin-token') })
  t.equal(withCredential.headers.vary, undefined)
  t.equal(withCredential.headers['cache-control'], 'public, max-age=300')
  t.equal(withCredential.body, (await counting.inject({ url: PATH })).body)
  t.equal(verified, 0, 'no credential is verified')
})

t.test('a type only hidden commands name is left out of the views that leave them out', async (t) => {
  const app = await audienceShop(t, {
    options: {
      types: {
        Product: Type.Object({ sku: Type.String() }),
        AuditEntry: Type.Object({ who: Type.String() }),
        Unused: Type.Object({ note: Type.String() })
      },
      events: { 'product.added': { description: 'A product was added', data: Type.Object({ product: Type.Ref('Product') }) }, 'catalog.cleared': { description: 'The catalogue was emptied' } }
    },
    routes: (app) => {
      app.svc.type('AuditLog', Type.Object({ entries: Type.Array(Type.Ref('AuditEntry')), about: Type.Ref('Product') }))
      app.get('/products', { svc: { name: 'products.list', description: 'Products', returns: Type.Array(Type.Ref('Product')) } }, async () => [])
      app.get('/admin/audit', { svc: { name: 'admin.audit', description: 'Audit log', auth: 'hidden', scopes: ['admin'], returns: Type.Ref('AuditLog') } }, async () => ({ entries: [], about: { sku: 'x' } }))
    }
  })
  t.same(Object.keys(app.svc.manifest.types), ['AuditEntry', 'AuditLog', 'Product', 'Unused'])
  const publicView = (await app.inject({ url: PATH })).json()
  t.same(Object.keys(publicView.types), ['Product', 'Unused'], 'AuditLog and the AuditEntry it names are the hidden command\'s alone')
  t.ok(verifyManifest(publicView, { strict: true }).ok, 'every type the view names is in it')
  const adminView = (await app.inject({ url: PATH, headers: withToken('admin-token') })).json()
  t.same(Object.keys(adminView.types), ['AuditEntry', 'AuditLog', 'Product', 'Unused'])
  t.same(Object.keys((await app.inject({ url: PATH, headers: withToken('ops-token') })).json().types), ['Product', 'Unused'])
})
