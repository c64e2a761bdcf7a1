import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)
const consumer = (file: string) => fileURLToPath(new URL(`../fixtures/consumer/${file}`, import.meta.url))
const root = fileURLToPath(new URL('../..', import.meta.url))

async function runConsumer (file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [consumer(file)], { cwd: root })
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

t.test('importing the plugin loads no TypeBox: only the client and the schema entry need it', async (t) => {
  const loaded = async (specifier: string): Promise<string[]> => {
    const { stdout } = await run(process.execPath, [consumer('loaded-packages.mjs'), specifier], { cwd: root })
    return JSON.parse(stdout)
  }
  const plugin = await loaded('fastify-svc-manifest')
  t.ok(plugin.includes('fastify-plugin'), 'the hook sees the packages the plugin imports')
  t.notOk(plugin.includes('@sinclair/typebox'), 'the main entry does not load TypeBox')
  t.notOk(plugin.includes('@modelcontextprotocol/sdk'), 'nor the MCP SDK, an optional peer loaded only with the mcp option')
  t.ok((await loaded('fastify-svc-manifest/client')).includes('@sinclair/typebox'), 'the client validates with it')
  t.ok((await loaded('fastify-svc-manifest/schema')).includes('@sinclair/typebox'))
})
