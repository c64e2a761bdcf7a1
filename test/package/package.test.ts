import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { requiredOptions } from '../helpers/app.js'

const run = promisify(execFile)
const consumer = (file: string) => fileURLToPath(new URL(`../fixtures/consumer/${file}`, import.meta.url))
const root = fileURLToPath(new URL('../..', import.meta.url))

async function runConsumer (file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [consumer(file)], { cwd: root })
  return JSON.parse(stdout)
}

/**
 * What importing `specifier` loads: the packages, and the files of this package's dist/. With `options`,
 * also what an app with the plugin and one command (`svc`) loads until it is ready and has served its manifest.
 */
async function loaded (specifier: string, options?: Record<string, unknown>, svc?: Record<string, unknown>): Promise<{ packages: string[], ownFiles: string[], builtins: string[] }> {
  const extra = options === undefined ? [] : [JSON.stringify({ ...requiredOptions, ...options }), ...(svc === undefined ? [] : [JSON.stringify(svc)])]
  const { stdout } = await run(process.execPath, [consumer('loaded-packages.mjs'), specifier, ...extra], { cwd: root })
  return JSON.parse(stdout)
}

t.test('the built package imports from ESM by its name', async (t) => {
  t.same(await runConsumer('import.mjs'), { same: true, status: 200, commands: ['ping'], valid: true })
})

t.test('require() from CommonJS gets the default and named exports', async (t) => {
  t.same(await runConsumer('require.cjs'), { same: true, checksumOf: 'function', status: 200, commands: ['ping'], valid: true })
})

t.test('the required module can be registered directly', async (t) => {
  t.same(await runConsumer('require-namespace.cjs'), { status: 200 })
})

t.test('the exports map lists types first and the built files exist', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
  for (const [subpath, target] of Object.entries<Record<string, string>>(pkg.exports)) {
    if (typeof target === 'string') continue
    t.same(Object.keys(target)[0], 'types', `${subpath}: types first`)
    for (const file of Object.values(target)) {
      await t.resolves(readFile(new URL(`../../${file}`, import.meta.url)), `${subpath}: ${file} is built`)
    }
  }
})

t.test('the svc-manifest bin points at a built file', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
  for (const [name, file] of Object.entries<string>(pkg.bin)) {
    await t.resolves(readFile(new URL(`../../${file}`, import.meta.url)), `${name}: ${file} is built`)
  }
})

t.test('every entry loads with require(), and the entries share their classes', async (t) => {
  t.same(await runConsumer('entries.cjs'), {
    schema: 'function',
    sameChecksumOf: true,
    code: 'SVC_CLIENT_INVALID_MANIFEST',
    clientErrorClass: true
  }, 'an error thrown by the main entry is an instance of the class the client exports')
})

t.test('importing the plugin loads no TypeBox: only the client and the schema entry need it', async (t) => {
  const plugin = await loaded('fastify-svc-manifest')
  t.ok(plugin.builtins.includes('node:crypto'), 'the hook sees what the plugin imports')
  t.notOk(plugin.packages.includes('@sinclair/typebox'), 'the main entry does not load TypeBox')
  t.notOk(plugin.packages.includes('@modelcontextprotocol/server'), 'nor the MCP SDK, an optional peer loaded only with the mcp option')
  t.notOk(plugin.packages.includes('mqemitter-redis'), 'nor mqemitter-redis, an optional peer loaded only with realtime.redis')
  // Its ES namespace is built on import, and on Node 22 and later that loads undici (some 17 ms).
  t.notOk(plugin.builtins.includes('node:http'), `nor node:http as an ES module (imported: ${plugin.builtins.join(', ')})`)
  t.ok((await loaded('fastify-svc-manifest/client')).packages.includes('@sinclair/typebox'), 'the client validates with it')
  t.ok((await loaded('fastify-svc-manifest/schema')).packages.includes('@sinclair/typebox'))
})

t.test('importing the plugin loads a few bundled files, not one per module of lib/', async (t) => {
  const { ownFiles } = await loaded('fastify-svc-manifest')
  t.ok(ownFiles.includes('index.js'), 'the hook sees the files of dist/')
  // Node's ESM loader costs about a millisecond per file; unbundled, the main entry loaded some 45.
  t.ok(ownFiles.length <= 8, `at most 8 files of dist/ (loaded ${ownFiles.length}: ${ownFiles.join(', ')})`)
})

t.test('an app loads what it uses: no realtime code without an event or a channel, no canonicalize for a manifest the fast path writes', async (t) => {
  const realtimeChunk = (files: string[]) => files.some((file) => file.startsWith('chunks/realtime-'))
  const plain = await loaded('fastify-svc-manifest', {})
  t.notOk(plain.packages.includes('mqemitter'), `no mqemitter (loaded: ${plain.packages.join(', ')})`)
  t.notOk(realtimeChunk(plain.ownFiles), `no realtime code (loaded: ${plain.ownFiles.join(', ')})`)
  t.notOk(plain.packages.includes('canonicalize'), 'no canonicalize')
  const withEvent = await loaded('fastify-svc-manifest', { events: { 'order.placed': { description: 'An order was placed' } } })
  t.ok(withEvent.packages.includes('mqemitter'), 'an app with an event loads mqemitter')
  t.ok(realtimeChunk(withEvent.ownFiles), 'and the realtime code')
  const indexKey = await loaded('fastify-svc-manifest', {}, { description: 'Ping', params: { type: 'object', properties: { 10: { type: 'string' } } } })
  t.ok(indexKey.packages.includes('canonicalize'), 'a key JavaScript cannot order canonically (an array index) loads canonicalize')
})
