// Defects of `svc-manifest generate`: the usual fastify-cli / @fastify/autoload app, whose default export
// is a plugin `async (fastify, opts)`, failed with "Cannot convert undefined or null to object"; a module
// that left a timer open kept the CLI alive after the file was written; a factory that never settles
// ended in Node's silent exit 13. Now a function that declares parameters is registered as a plugin, the
// CLI exits once its output is written, and `--timeout` (default 30 s) ends a stuck module with exit 2.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { verifyManifest } from '../../lib/client/index.js'
import { cli, fixtureApp, oneLine, spawned } from '../helpers/cli.js'

t.test('a plugin-shaped default export: registered on a new app, its manifest found in any context', async (t) => {
  const run = await cli('generate', fixtureApp('plugin-app'))
  t.equal(run.code, 0, run.stderr)
  const manifest = JSON.parse(run.stdout)
  t.same(verifyManifest(manifest), { ok: true, errors: [] })
  t.equal(manifest.name, 'Demo')
  t.same(Object.keys(manifest.commands), ['cart.get'])
  t.ok(manifest.commands['cart.get'], 'the route of the prefixed, encapsulated routes plugin')
})

t.test('a callback-style plugin (fastify, opts, done) works too', async (t) => {
  const run = await cli('generate', fixtureApp('callback-plugin'))
  t.equal(run.code, 0, run.stderr)
  t.same(Object.keys(JSON.parse(run.stdout).commands), ['ping'])
})

t.test('how the shapes are told apart, and what each wrong one hears', async (t) => {
  const withParameter = await cli('generate', fixtureApp('factory-with-parameter'))
  t.equal(withParameter.code, 2)
  oneLine(t, withParameter.stderr, 'the app does not register fastify-svc-manifest (its default export declares parameters, so it was registered as a plugin; a function that builds and returns the app must declare none)')

  const nothing = await cli('generate', fixtureApp('factory-returns-nothing'))
  t.equal(nothing.code, 2)
  oneLine(t, nothing.stderr, 'a function that declares no parameters, so it was called to build the app, and it returned undefined')

  const number = await cli('generate', fixtureApp('number'))
  t.equal(number.code, 2)
  oneLine(t, number.stderr, 'the default export must be a Fastify instance, a function that returns one, or a plugin (fastify, opts); it is a number')
})

t.test('a plugin module from which fastify cannot be found: exit 2 saying so', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-manifest-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'app.mjs')
  await writeFile(path, 'export default async function app (fastify, opts) {}\n')
  const run = await cli('generate', path)
  t.equal(run.code, 2)
  oneLine(t, run.stderr, `${path}: its default export is a plugin, but fastify cannot be found from the module to create the app; install fastify in the app`)
})

t.test('a module that leaves a timer open: the CLI exits once the file is written', async (t) => {
  const out = join(t.testdir({}), 'svc.json')
  const run = await spawned(['generate', fixtureApp('leaves-timer'), '--out', out], 10_000)
  t.equal(run.killed, false, 'the process exited by itself')
  t.equal(run.code, 0, run.stderr)
  const manifest = JSON.parse(await readFile(out, 'utf8'))
  t.equal(run.stdout, `wrote ${out}: 1 command, checksum ${manifest.checksum}\n`)
})

t.test('a factory that never settles: exit 2 and a message after --timeout, not a silent exit 13', async (t) => {
  const run = await spawned(['generate', fixtureApp('never-settles'), '--timeout', '0.5'], 10_000)
  t.equal(run.killed, false)
  t.equal(run.code, 2)
  t.equal(run.stdout, '')
  t.equal(run.stderr, `svc-manifest: ${fixtureApp('never-settles')}: no manifest within 500 ms: importing the module, building the app, ready() or close() did not finish. Look for a promise that never settles (a connection that never opens?), or raise --timeout.\n`)

  const inProcess = await cli('generate', fixtureApp('never-settles'), '--timeout', '0.2')
  t.equal(inProcess.code, 2)
  oneLine(t, inProcess.stderr, 'no manifest within 200 ms')
})
