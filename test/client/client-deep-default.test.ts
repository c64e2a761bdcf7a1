// Defect: a served manifest with a param default nested 20,000 levels deep made the client throw a raw
// RangeError (stack overflow in the checksum). A manifest may nest 256 levels: deeper is refused, with the
// same answer on every machine, by `verifyManifest`, `checksumOf` and `client.get()`.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { checksumOf, createManifestClient, diffManifests, ManifestClientError, verifyManifest, type Manifest } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli } from '../helpers/cli.js'

/** JSON text of a manifest whose `search(q)` default is `depth` arrays deep, with a made-up checksum. */
function deepManifestText (depth: number): string {
  const commands = `{"search":{"description":"Search","params":{"q":{"type":"array","required":false,"default":${'['.repeat(depth)}${']'.repeat(depth)}}}}}`
  const manifest = JSON.stringify({ ...manifestOf(), commands: '<commands>' })
  return manifest.replace('"<commands>"', commands)
}

/** A default nested `depth` levels, as a value. */
function nested (depth: number): unknown {
  let value: unknown = []
  for (let level = 1; level < depth; level++) value = [value]
  return value
}

const DEEP_POINTER = '/commands/search/params/q/default/0/0/0/…'

t.test('client.get(): a 20,000-deep default is SVC_CLIENT_INVALID_MANIFEST, not a RangeError', async (t) => {
  const { origin } = await rawServer(t, (request, response) => sendJson(response, deepManifestText(20_000)))
  const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
  t.ok(error instanceof ManifestClientError, String(error))
  t.equal(error.code, 'SVC_CLIENT_INVALID_MANIFEST')
  t.same(error.errors, [`${DEEP_POINTER}: nested too deeply (a manifest may nest 256 levels); refused`])
})

t.test('verifyManifest and checksumOf on hostile input answer, without recursion', async (t) => {
  const manifest = JSON.parse(deepManifestText(20_000))
  t.same(verifyManifest(manifest), { ok: false, errors: [`${DEEP_POINTER}: nested too deeply (a manifest may nest 256 levels); refused`] })
  const error = (() => { try { checksumOf(manifest.commands) } catch (error) { return error } })() as ManifestClientError
  t.ok(error instanceof ManifestClientError)
  t.equal(error.code, 'SVC_CLIENT_INVALID_MANIFEST')
  t.equal(error.message, `cannot compute the checksum: ${DEEP_POINTER}: nested too deeply (a manifest may nest 256 levels); refused`)

  const cyclic: Record<string, unknown> = { description: 'Loop' }
  cyclic.params = { q: { type: 'object', required: false, default: cyclic } }
  t.match(verifyManifest({ ...manifestOf(), commands: { loop: cyclic } }).errors, [/^\/commands\/loop\/params\/q\/default\/params\/q\/default\/…: nested too deeply/], 'a cycle is too deep too')
})

t.test('the limit: a default nested 251 levels (levels 6 to 256 of the manifest) passes; 252 does not', async (t) => {
  const at = (depth: number): Manifest => manifestOf({ search: { description: 'Search', params: { q: { type: 'array', required: false, default: nested(depth) } } } })
  const deepest = at(251)
  t.same(verifyManifest(deepest), { ok: true, errors: [] })
  t.same(diffManifests(deepest, at(250)).nonBreaking.map((change) => change.kind), ['param.default-changed'])
  t.throws(() => at(252), { code: 'SVC_CLIENT_INVALID_MANIFEST' }, 'checksumOf refuses it')
  const over = { ...deepest, commands: { search: { description: 'Search', params: { q: { type: 'array', required: false, default: nested(252) } } } } }
  t.match(verifyManifest(over), { ok: false, errors: [/nested too deeply/] })
})

t.test('svc-manifest check on such a file: exit 1 with the problem', async (t) => {
  const path = join(t.testdir({}), 'deep.json')
  await writeFile(path, deepManifestText(20_000))
  const run = await cli('check', path)
  t.equal(run.code, 1)
  t.equal(run.stderr, `svc-manifest: ${path} is not a valid manifest:\n  ${DEEP_POINTER}: nested too deeply (a manifest may nest 256 levels); refused\n`)
})
