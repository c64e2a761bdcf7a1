import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import t from 'tap'
import { checksumOf } from '../../lib/client/index.js'
import { rawServer, sendJson } from '../helpers/raw-server.js'
import { SURF_TOKEN, surfServer } from '../helpers/surf.js'
import { compileInputSchema, inProcessCli, textJson } from '../helpers/mcp.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('spawned against a Surf service (its origin): tools from its manifest, calls through /surf/execute', async (t) => {
  const surf = await surfServer(t)
  const transport = new StdioClientTransport({ command: process.execPath, args: ['dist/cli/bin.js', 'mcp', surf.origin, '--token', SURF_TOKEN], cwd: root, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  t.same(client.getServerVersion(), { name: 'Acme Shop', version: '1.2.0' })
  t.equal(client.getInstructions(), 'A small shop served by Surf')
  const { tools } = await client.listTools()
  t.same(tools.map(({ name }) => name), ['search', 'product_get', 'cart_add', 'report'])
  const search = tools[0]
  t.same(search.inputSchema, {
    type: 'object',
    properties: {
      query: { type: 'string' },
      limit: { type: 'number', description: 'Maximum number of items to return.' },
      cursor: { type: 'string', description: 'Opaque cursor from a previous response\'s nextCursor.' }
    },
    required: ['query']
  }, 'params without required are optional')
  t.same(tools[1].inputSchema, { type: 'object', properties: { sku: { type: 'string' } } }, 'none required: no required list')
  for (const tool of tools) compileInputSchema(tool)
  t.same(search.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, 'Surf\'s hints, estimatedMs aside')
  t.same(textJson(await client.callTool({ name: 'search', arguments: { query: 'tea' } })), { items: [{ sku: 'tea-1', name: 'Tea matching tea', price: 4 }], hasMore: false })
  t.same(textJson(await client.callTool({ name: 'cart_add', arguments: { sku: 'x' } })), { added: 'x', quantity: 1 }, 'the token goes with the call')
  t.same(surf.posts.map(({ path, authorization }) => `${path} ${authorization}`), [`/surf/execute Bearer ${SURF_TOKEN}`, `/surf/execute Bearer ${SURF_TOKEN}`])
  t.match(stderr, `4 tools of Acme Shop 1.2.0 (${surf.origin}/.well-known/surf.json) on stdio`)
})

t.test('in-process: Surf\'s 401 is a tool error with its code and the HTTP status', async (t) => {
  const surf = await surfServer(t)
  const cli = inProcessCli('mcp', surf.origin)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  const refused = await client.callTool({ name: 'cart_add', arguments: { sku: 'x' } })
  t.equal(refused.isError, true)
  t.same(textJson(refused), { code: 'AUTH_REQUIRED', message: 'Authentication required for command: cart.add', status: 401 })
  // Ended before the next test runs the CLI in this process: its output goes back to the process's streams then.
  await client.close()
  t.equal(await cli.exit, 0)
})

t.test('in-process: a manifest with neither version nor description: an empty version, no instructions', async (t) => {
  const commands = { ping: { description: 'Ping', returns: { $ref: '#/types/Pong' } } }
  const manifest = { svc: '1.0', name: 'Bare', commands, types: { Pong: { type: 'object' } }, checksum: checksumOf(commands as never) }
  const server = await rawServer(t, (request, response) => sendJson(response, manifest))
  const cli = inProcessCli('mcp', `${server.origin}/m.json`)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  t.same(client.getServerVersion(), { name: 'Bare', version: '' })
  t.equal(client.getInstructions(), undefined)
  t.same((await client.listTools()).tools.map(({ name }) => name), ['ping'])
  await client.close()
  t.equal(await cli.exit, 0)
  t.equal(cli.stderr(), `svc-manifest mcp: 1 tools of Bare (${server.origin}/m.json) on stdio\n`, 'no version: none printed')
})
