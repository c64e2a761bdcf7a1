import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { diffManifests, verifyManifest, type Manifest } from '../../lib/client/index.js'
import { processOutput } from '../../lib/cli/output.js'
import { requiredOptions } from '../helpers/app.js'
import { cli, fixtureApp as app, oneLine, spawned as spawnedWith } from '../helpers/cli.js'

/** The built CLI in a process: exit status, stdout and stderr. */
const spawned = async (...args: string[]) => {
  const { code, stdout, stderr } = await spawnedWith(args)
  return { code, stdout, stderr }
}

/** A real server with the plugin, plus a mirror route that serves its manifest tampered. */
async function startShop (t: Test) {
  const server = Fastify()
  await server.register(svcManifest, { ...requiredOptions })
  server.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }) } }, async () => [])
  server.get('/tampered.json', async () => ({ ...server.svc.manifest, commands: {} }))
  await server.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const { port } = server.server.address() as { port: number }
  return { server, origin: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/.well-known/svc.json` }
}

/** The manifest of a fixture app, written by `generate --out` into `dir`. */
async function generated (t: Test, dir: string, fixture: string, file = `${fixture}.json`): Promise<{ path: string, manifest: Manifest }> {
  const path = join(dir, file)
  const run = await cli('generate', app(fixture), '--out', path)
  t.equal(run.code, 0, run.stderr)
  return { path, manifest: JSON.parse(await readFile(path, 'utf8')) }
}

t.test('the bin runs main: output on its streams, the exit code as its status', async (t) => {
  const help = await spawned('--help')
  t.equal(help.code, 0)
  t.same(help, await cli('--help'), 'the same as in-process')
  const usage = await spawned('publish')
  t.equal(usage.code, 2)
  oneLine(t, usage.stderr, 'unknown command "publish"')
  t.equal(usage.stdout, '')
})

t.test('without a sink, main writes to the process\'s own streams and reads its stdin', (t) => {
  const stdout = t.capture(process.stdout, 'write', () => true)
  const stderr = t.capture(process.stderr, 'write', () => true)
  processOutput.stdout('out\n')
  processOutput.stderr('err\n')
  stdout.restore()
  stderr.restore()
  t.same(stdout().map((call) => call.args), [['out\n']])
  t.same(stderr().map((call) => call.args), [['err\n']])
  t.equal(processOutput.stdin, process.stdin)
  t.end()
})

t.test('--help on the program and on each command, exit 0', async (t) => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const run = await cli(...args)
    t.equal(run.code, 0)
    t.match(run.stdout, /^Usage: svc-manifest <command> \[options\]/)
    t.match(run.stdout, 'Exit codes: 0 ok, 1 invalid manifest, breaking changes, a failed command or a refused stream, 2 usage,\nnetwork or file error, 130 call --stream interrupted (Ctrl-C).')
    t.equal(run.stderr, '')
  }
  for (const command of ['fetch', 'check', 'diff', 'generate']) {
    const run = await cli(command, '--help')
    t.equal(run.code, 0)
    t.match(run.stdout, `Usage: svc-manifest ${command} `)
    t.same(await cli('help', command), run, `help ${command} prints the same`)
  }
  t.match((await cli('diff', '-h')).stdout, '--json')
  t.match((await cli('check', '-h')).stdout, '--strict              Check the manifest as this plugin serves it')
  t.match((await cli('generate', '--help')).stdout, '-o, --out <file>')
})

t.test('usage errors: exit 2 and one line on stderr', async (t) => {
  const none = await cli()
  t.equal(none.code, 2)
  oneLine(t, none.stderr, 'missing command. Run svc-manifest --help.')
  t.equal(none.stdout, '')

  const unknown = await cli('publish')
  t.equal(unknown.code, 2)
  oneLine(t, unknown.stderr, 'unknown command "publish" (commands: fetch, check, diff, generate, call, mcp, events, watch)')

  const missing = await cli('diff', 'before.json')
  t.equal(missing.code, 2)
  oneLine(t, missing.stderr, 'diff takes <before> <after>. Run svc-manifest diff --help.')

  const extra = await cli('check', 'a.json', 'b.json')
  t.equal(extra.code, 2)
  oneLine(t, extra.stderr, 'check takes <url|file>')

  const option = await cli('check', '--json', 'a.json')
  t.equal(option.code, 2)
  oneLine(t, option.stderr, /Unknown option '--json'.*Run svc-manifest check --help\.$/m)

  const outWithoutValue = await cli('generate', app('shop'), '--out')
  t.equal(outWithoutValue.code, 2)
  oneLine(t, outWithoutValue.stderr, '--out')
})

t.test('fetch <url> prints the verified manifest', async (t) => {
  const { server, url, origin } = await startShop(t)
  const run = await cli('fetch', url)
  t.equal(run.code, 0, run.stderr)
  t.same(JSON.parse(run.stdout), server.svc.manifest)
  t.match(run.stdout, /^{\n {2}"svc": "1.0",\n/, 'pretty JSON')

  const tampered = await cli('fetch', `${origin}/tampered.json`)
  t.equal(tampered.code, 1)
  t.equal(tampered.stdout, '')
  t.match(tampered.stderr, `svc-manifest: ${origin}/tampered.json is not a valid manifest:\n  /checksum: `)

  const notFound = await cli('fetch', `${origin}/nothing.json`)
  t.equal(notFound.code, 2)
  oneLine(t, notFound.stderr, `GET ${origin}/nothing.json answered 404, expected 200 or 304`)

  const file = await cli('fetch', 'manifest.json')
  t.equal(file.code, 2)
  oneLine(t, file.stderr, 'fetch takes an http(s) URL; got "manifest.json"')
})

t.test('fetch: a network error is exit 2 with one line', async (t) => {
  const { server, url } = await startShop(t)
  await server.close()
  const run = await cli('fetch', url)
  t.equal(run.code, 2)
  oneLine(t, run.stderr, `GET ${url} failed: connect ECONNREFUSED`)
})

t.test('check <url|file>: exit 0 when valid, 1 with the reasons when not', async (t) => {
  const { server, url, origin } = await startShop(t)
  const fromUrl = await cli('check', url)
  t.equal(fromUrl.code, 0)
  t.equal(fromUrl.stdout, `${url}: valid manifest, layout 1.0, 1 command, checksum ${server.svc.checksum}\n`)

  const dir = t.testdir({})
  const { path, manifest } = await generated(t, dir, 'shop')
  const fromFile = await cli('check', path)
  t.equal(fromFile.code, 0)
  t.match(fromFile.stdout, `valid manifest, layout 1.0, 2 commands, checksum ${manifest.checksum}`)

  const tamperedPath = join(dir, 'tampered.json')
  await writeFile(tamperedPath, JSON.stringify({ ...manifest, commands: { ...manifest.commands, 'admin.drop': { description: 'Injected' } } }))
  const tampered = await cli('check', tamperedPath)
  t.equal(tampered.code, 1)
  t.equal(tampered.stdout, '')
  t.match(tampered.stderr, /is not a valid manifest:\n {2}\/checksum: [0-9a-f]{64} does not match the commands/)

  const invalidPath = join(dir, 'invalid.json')
  await writeFile(invalidPath, JSON.stringify({ ...manifest, svc: '1.0', channels: {}, extra: true }))
  // A reader keeps fields it does not know; --strict checks the manifest as the plugin serves it.
  const liberal = await cli('check', invalidPath)
  t.equal(liberal.code, 0, liberal.stderr)
  const invalid = await cli('check', '--strict', invalidPath)
  t.equal(invalid.code, 1)
  t.match(invalid.stderr, `${invalidPath} (--strict) is not a valid manifest:\n  /channels: Unexpected property\n  /extra: Unexpected property\n`)
  t.equal((await cli('check', '--strict', path)).code, 0, 'what the plugin generated passes --strict')

  const mirror = await cli('check', `${origin}/tampered.json`)
  t.equal(mirror.code, 1)
})

t.test('check: unreadable input is exit 2 with one line', async (t) => {
  const missing = await cli('check', 'no/such/manifest.json')
  t.equal(missing.code, 2)
  oneLine(t, missing.stderr, 'cannot read no/such/manifest.json: ENOENT')

  const notJson = join(t.testdir({ 'svc.json': '<html>' }), 'svc.json')
  const run = await cli('check', notJson)
  t.equal(run.code, 2)
  oneLine(t, run.stderr, `${notJson} is not JSON: `)
})

t.test('generate <module> writes the manifest of the app without listening', async (t) => {
  const run = await spawned('generate', app('shop'))
  t.equal(run.code, 0, run.stderr)
  const manifest = JSON.parse(run.stdout)
  t.same(verifyManifest(manifest, { strict: true }), { ok: true, errors: [] })
  t.same(Object.keys(manifest.commands), ['cart.items', 'search'])
  t.same(manifest.commands.search.params.limit, { type: 'number', required: false, default: 10 })
  t.match(run.stdout, /\n {2}"commands": {\n/, 'pretty JSON')

  for (const instance of [await spawned('generate', app('instance')), await cli('generate', app('instance'))]) {
    t.equal(instance.code, 0, 'the default export may be the instance itself')
    t.same(JSON.parse(instance.stdout).channels, { cart: { description: 'Real-time cart state' } })
  }
})

t.test('generate --out writes the file and says so', async (t) => {
  const dir = t.testdir({})
  const out = join(dir, 'svc.json')
  const run = await spawned('generate', app('shop'), '--out', out)
  t.equal(run.code, 0)
  const manifest = JSON.parse(await readFile(out, 'utf8'))
  t.equal(run.stdout, `wrote ${out}: 2 commands, checksum ${manifest.checksum}\n`)
  t.match(await readFile(out, 'utf8'), /^{\n {2}"svc": "1.0",[^]*\n}\n$/)

  const short = join(dir, 'short.json')
  t.equal((await spawned('generate', '-o', short, app('shop'))).code, 0)
  t.equal(JSON.parse(await readFile(short, 'utf8')).checksum, manifest.checksum)

  const unwritable = await spawned('generate', app('shop'), '--out', join(out, 'inside-a-file.json'))
  t.equal(unwritable.code, 2)
  oneLine(t, unwritable.stderr, `cannot write ${join(out, 'inside-a-file.json')}: ENOTDIR`)
  t.same(await cli('generate', app('shop'), '--out', join(out, 'inside-a-file.json')), unwritable, 'the same in-process')
})

t.test('generate: modules that give no manifest, or fail, are exit 2 with one line, spawned and in-process', async (t) => {
  const cases: [string, string][] = [
    ['without-plugin', 'the app does not register fastify-svc-manifest'],
    ['not-an-app', 'the default export must be a Fastify instance, a function that returns one, or a plugin (fastify, opts); it is an object'],
    ['fails-to-start', 'the app failed to start: Missing description: route GET /oops'],
    ['factory-throws', 'the default export threw: database unreachable'],
    ['no-such-module', 'cannot import test/fixtures/apps/no-such-module.mjs: Cannot find module'],
    ['close-fails', 'unexpected error: pool still busy']
  ]
  for (const [fixture, message] of cases) {
    for (const run of [await spawned('generate', app(fixture)), await cli('generate', app(fixture))]) {
      t.equal(run.code, 2, fixture)
      t.equal(run.stdout, '')
      oneLine(t, run.stderr, message)
    }
  }
})

t.test('diff: no change, non-breaking only, breaking', async (t) => {
  const dir = t.testdir({})
  const { path: before, manifest } = await generated(t, dir, 'shop')
  const again = await generated(t, dir, 'shop', 'again.json')
  const same = await cli('diff', before, again.path)
  t.equal(same.code, 0)
  t.equal(same.stdout, 'No changes.\n')

  const renamed = join(dir, 'renamed.json')
  await writeFile(renamed, JSON.stringify({ ...manifest, version: '2.3.1', name: 'Shop 2' }))
  const nonBreaking = await cli('diff', before, renamed)
  t.equal(nonBreaking.code, 0)
  t.equal(nonBreaking.stdout, [
    '2 non-breaking changes:',
    '  service.changed         service name changed from "Shop" to "Shop 2"',
    '  service.changed         service version changed from "2.3.0" to "2.3.1"',
    ''
  ].join('\n'))

  const { path: after } = await generated(t, dir, 'shop-next')
  const breaking = await cli('diff', before, after)
  t.equal(breaking.code, 1)
  t.equal(breaking.stderr, '')
  t.equal(breaking.stdout, [
    '2 breaking changes:',
    '  command.removed         command cart.items was removed',
    '  param.added             command search: required param locale was added',
    '2 non-breaking changes:',
    '  service.changed         service version changed from "2.3.0" to "2.4.0"',
    '  command.added           command orders was added',
    ''
  ].join('\n'))

  const single = join(dir, 'single.json')
  await writeFile(single, JSON.stringify({ ...manifest, version: '9' }))
  t.match((await cli('diff', before, single)).stdout, /^1 non-breaking change:\n/)
})

t.test('diff --json prints the diffManifests result; exit 1 still means breaking', async (t) => {
  const dir = t.testdir({})
  const before = await generated(t, dir, 'shop')
  const after = await generated(t, dir, 'shop-next')
  const run = await cli('diff', '--json', before.path, after.path)
  t.equal(run.code, 1)
  t.same(JSON.parse(run.stdout), diffManifests(before.manifest, after.manifest))

  const reverse = await cli('diff', after.path, before.path, '--json')
  t.equal(reverse.code, 1)
  const { breaking, nonBreaking } = JSON.parse(reverse.stdout)
  t.same(breaking.map((change: { kind: string, name: string }) => `${change.kind} ${change.name}`), ['command.removed orders', 'param.removed search(locale)'])
  t.same(nonBreaking.map((change: { kind: string, name: string }) => `${change.kind} ${change.name}`), ['service.changed version', 'command.added cart.items'])
})

t.test('diff a committed file against the live service; invalid input is exit 1, unreadable exit 2', async (t) => {
  const { url, origin } = await startShop(t)
  const committed = join(t.testdir({}), 'svc.json')
  await writeFile(committed, (await cli('fetch', url)).stdout)
  const live = await cli('diff', committed, url)
  t.equal(live.code, 0)
  t.equal(live.stdout, 'No changes.\n')

  const tampered = await cli('diff', committed, `${origin}/tampered.json`)
  t.equal(tampered.code, 1)
  t.equal(tampered.stdout, '')
  t.match(tampered.stderr, 'tampered.json is not a valid manifest:\n  /checksum:')

  const missing = await cli('diff', committed, 'missing.json')
  t.equal(missing.code, 2)
  oneLine(t, missing.stderr, 'cannot read missing.json')
})
