import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { checksumOf, createManifestClient } from '../../lib/client/index.js'
import { audienceShop } from '../helpers/audiences.js'
import { cli, fixtureApp } from '../helpers/cli.js'
import { listening } from '../helpers/net.js'

const PATH = '/.well-known/svc.json'

t.test('client: get({ token }) reads that credential\'s view, each view cached and revalidated on its own', async (t) => {
  const app = await audienceShop(t)
  const url = `${await listening(t, app)}${PATH}`
  let now = 0
  const client = createManifestClient({ url, now: () => now })
  const anonymous = await client.get()
  t.same(Object.keys(anonymous.manifest.commands), ['catalog.list', 'orders.list'])
  const admin = await client.get({ token: 'admin-token' })
  t.equal(admin.status, 'fetched', 'another view is fetched, not a change of the public one')
  t.same(Object.keys(admin.manifest.commands), ['admin.stats', 'catalog.list', 'ops.restart', 'orders.list'])
  t.equal(admin.manifest.checksum, checksumOf(admin.served.commands))
  t.same(client.manifest, admin.manifest, 'the last manifest received')
  t.equal((await client.get()).status, 'fresh', 'the public view is still fresh')
  now += 301_000
  const revalidated = await client.get({ token: 'admin-token' })
  t.equal(revalidated.status, 'revalidated', 'a 304 for the admin view')
  t.same(Object.keys(revalidated.manifest.commands), Object.keys(admin.manifest.commands))
  await t.rejects(client.get({ token: 'wrong-token' }), { code: 'SVC_CLIENT_HTTP_STATUS', status: 401 })

  const withToken = createManifestClient({ url, token: 'ops-token' })
  t.same(Object.keys((await withToken.get()).manifest.commands), ['catalog.list', 'ops.restart', 'orders.list'], 'createManifestClient({ url, token })')
  t.same(Object.keys((await withToken.get({ token: 'admin-token' })).manifest.commands).length, 4, 'a token given to get() wins')
})

t.test('client: the views of the 16 tokens read from the service last are kept, the oldest dropped', async (t) => {
  const app = await audienceShop(t, { options: { auth: { type: 'bearer', description: 'Any token', verify: (token: string) => ({ sub: token, scope: 'admin' }) } } })
  const client = createManifestClient({ url: `${await listening(t, app)}${PATH}` })
  t.equal((await client.get()).status, 'fetched')
  for (let index = 1; index <= 15; index++) await client.get({ token: `token-${index}` })
  t.equal((await client.get()).status, 'fresh', 'sixteen views: the first is still kept')
  await client.get({ token: 'token-16' })
  t.equal((await client.get({ token: 'token-16' })).status, 'fresh')
  t.equal((await client.get({ token: 'token-1' })).status, 'fresh')
  t.equal((await client.get()).status, 'fetched', 'the view read from the service first was dropped')
})

t.test('client: a token goes with the service\'s own scheme, learnt from the manifest when not known yet', async (t) => {
  const app = await audienceShop(t, {
    options: { auth: { type: 'bearer', scheme: 'Token', description: 'Shop tokens', verify: (token) => token === 'admin-token' ? { sub: 'root', scope: 'admin ops' } : undefined } }
  })
  const url = `${await listening(t, app)}${PATH}`
  const sent: string[] = []
  const client = createManifestClient({
    url,
    fetch: async (input, init) => {
      sent.push(String((init?.headers as Record<string, string>).authorization))
      return await fetch(input, init)
    }
  })
  const result = await client.get({ token: 'admin-token' })
  t.same(Object.keys(result.manifest.commands), ['admin.stats', 'catalog.list', 'ops.restart', 'orders.list'])
  t.same(sent, ['Bearer admin-token', 'Token admin-token'])
})

t.test('CLI: fetch --token prints the view; generate writes the public manifest, --all every command', async (t) => {
  const app = await audienceShop(t)
  const url = `${await listening(t, app)}${PATH}`
  const publicRun = await cli('fetch', url)
  t.equal(publicRun.code, 0)
  t.same(Object.keys(JSON.parse(publicRun.stdout).commands), ['catalog.list', 'orders.list'])
  const adminRun = await cli('fetch', url, '--token', 'admin-token')
  t.equal(adminRun.code, 0)
  t.same(Object.keys(JSON.parse(adminRun.stdout).commands), ['admin.stats', 'catalog.list', 'ops.restart', 'orders.list'])
  const refused = await cli('fetch', url, '--token', 'nope')
  t.equal(refused.code, 2)
  t.match(refused.stderr, /answered 401/)
  t.match((await cli('fetch', '--help')).stdout, '--token <token>')

  const called = await cli('call', url, 'admin.stats', '--token', 'admin-token')
  t.same([called.code, JSON.parse(called.stdout)], [0, { sales: 42, by: 'root' }], 'call reads the view of its token')

  const dir = await mkdtemp(join(tmpdir(), 'svc-audiences-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const publicFile = join(dir, 'public.json')
  const allFile = join(dir, 'all.json')
  t.equal((await cli('generate', fixtureApp('hidden-admin'), '--out', publicFile)).code, 0)
  t.equal((await cli('generate', fixtureApp('hidden-admin'), '--all', '--out', allFile)).code, 0)
  const generated = JSON.parse(await readFile(publicFile, 'utf8'))
  const all = JSON.parse(await readFile(allFile, 'utf8'))
  t.same(Object.keys(generated.commands), ['catalog.list'])
  t.same(Object.keys(all.commands), ['admin.stats', 'catalog.list'])
  t.equal(generated.checksum, checksumOf(generated.commands))
  t.equal(all.checksum, checksumOf(all.commands))
  t.equal((await cli('check', '--strict', publicFile)).code, 0)
  t.match((await cli('generate', '--help')).stdout, '--all')
})
