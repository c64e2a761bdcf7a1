import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

/**
 * The rules and defects of issue 11 on the built package (dist/), imported by its name as an app does:
 * the in-process tests run the TypeScript sources.
 */

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('the built package keeps every rule and fix of the manifest\'s fidelity', async (t) => {
  const { stdout } = await run(process.execPath, [fileURLToPath(new URL('../fixtures/consumer/fidelity.mjs', import.meta.url))], { cwd: root })
  t.same(JSON.parse(stdout), {
    valid: true,
    checksum: true,
    params: ['id', 'sku', 'quantity', '__proto__'],
    quantity: { type: 'number', required: false, default: 1 },
    returns: { type: 'Task' },
    search: {
      description: 'Search the catalogue',
      params: { q: { type: 'string', required: false }, limit: { type: 'number', required: false } },
      tags: ['catalog']
    },
    auth: { type: 'bearer', description: 'Token' },
    cookie: null,
    commaEtag: 200,
    starInList: 200,
    head304: { status: 304, contentLength: null, cookie: null },
    bigintMaxAge: 'FST_SVC_INVALID_OPTION',
    enumBigint: 'FST_SVC_UNMAPPABLE_SCHEMA',
    unseen: 'FST_SVC_UNSEEN_ROUTES',
    clashes: 2
  })
})
