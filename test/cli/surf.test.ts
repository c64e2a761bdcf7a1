import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { cli, spawned, type Run } from '../helpers/cli.js'
import { SURF_MANIFEST_TEXT, SURF_TOKEN, surfServer } from '../helpers/surf.js'

/** The built CLI as a user runs it, and the same main in this process: both give the same. */
async function run (t: Test, ...args: string[]): Promise<Run> {
  const { killed, ...result } = await spawned(args)
  t.notOk(killed)
  t.same(await cli(...args), result, 'the same in-process')
  return result
}

const SURF_CHECKSUM = JSON.parse(SURF_MANIFEST_TEXT).checksum as string

t.test('check and fetch take a Surf service\'s origin: /.well-known/svc.json answers 404, /.well-known/surf.json is read', async (t) => {
  const surf = await surfServer(t)
  const check = await run(t, 'check', surf.origin)
  t.equal(check.code, 0, check.stderr)
  t.equal(check.stdout, `${surf.origin}: valid manifest, Surf 0.1.0, read as layout 1.0, 4 commands, checksum ${SURF_CHECKSUM} (computed as Surf does: JSON.stringify of the commands, keys sorted)\n`)
  t.same(surf.requests.slice(0, 2), ['/.well-known/svc.json', '/.well-known/surf.json'])

  const fetched = await run(t, 'fetch', `${surf.origin}/`)
  t.equal(fetched.code, 0)
  t.same(JSON.parse(fetched.stdout), JSON.parse(SURF_MANIFEST_TEXT), 'printed as served')
  t.equal(fetched.stdout, `${SURF_MANIFEST_TEXT}\n`, 'byte for byte: Surf pretty-prints with two spaces too')

  const strict = await run(t, 'check', '--strict', surf.origin)
  t.equal(strict.code, 1)
  t.equal(strict.stderr, `svc-manifest: ${surf.origin} (--strict) is not a valid manifest:\n  /svc: expected a known layout, "1.0" or "0.5.0"; got nothing\n`)

  const named = await run(t, 'check', `${surf.origin}/.well-known/svc.json`)
  t.equal(named.code, 2, 'a manifest URL is read where it is named, and nowhere else')
  t.match(named.stderr, 'answered 404, expected 200 or 304')
})

t.test('check a Surf manifest saved to a file', async (t) => {
  const path = join(t.testdir({}), 'surf.json')
  await writeFile(path, SURF_MANIFEST_TEXT)
  const check = await cli('check', path)
  t.equal(check.code, 0)
  t.match(check.stdout, `${path}: valid manifest, Surf 0.1.0, read as layout 1.0, 4 commands, checksum ${SURF_CHECKSUM} (computed as Surf does`)
  const diff = await cli('diff', path, path)
  t.equal(diff.code, 0)
})

t.test('call a Surf command: its result, its 401 read with the HTTP status, the token as Bearer', async (t) => {
  const surf = await surfServer(t)
  const found = await run(t, 'call', surf.origin, 'search', 'query=tea')
  t.equal(found.code, 0, found.stderr)
  t.same(JSON.parse(found.stdout), { items: [{ sku: 'tea-1', name: 'Tea matching tea', price: 4 }], hasMore: false })

  const refused = await run(t, 'call', surf.origin, 'cart.add', 'sku=x')
  t.equal(refused.code, 1)
  t.equal(refused.stderr, 'svc-manifest: cart.add failed: AUTH_REQUIRED (401): Authentication required for command: cart.add\n')

  const added = await run(t, 'call', surf.origin, 'cart.add', 'sku=x', '--token', SURF_TOKEN)
  t.equal(added.code, 0, added.stderr)
  t.same(JSON.parse(added.stdout), { added: 'x', quantity: 1 })

  const unknown = await run(t, 'call', surf.origin, 'nope')
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr, 'svc-manifest: nope failed: UNKNOWN_COMMAND (404): Unknown command: nope\n')
  t.ok(surf.posts.every(({ path }) => path === '/surf/execute'))
})

t.test('events and watch take a Surf service\'s origin too; Surf serves no event stream of ours, and says 404', async (t) => {
  const surf = await surfServer(t)
  const events = await cli('events', surf.origin)
  t.equal(events.code, 1)
  t.equal(events.stderr, `svc-manifest: GET ${surf.origin}/surf/events answered 404\n`)
  const watch = await cli('watch', surf.origin, 'cart', 'alice')
  t.equal(watch.code, 1)
  t.equal(watch.stderr, `svc-manifest: ${surf.origin}/.well-known/surf.json has no channel "cart": its manifest (layout 1.0) has no channels.\n`)
})
