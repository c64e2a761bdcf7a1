import { fileURLToPath } from 'node:url'
import { Client, type Tool } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import svcManifest, { checksumOf, type Manifest } from '../../lib/index.js'
import { fetchManifest, requiredOptions } from '../helpers/app.js'
import { compileInputSchema, inProcessCli, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** `svc-manifest mcp …` spawned as a desktop MCP client starts it, with the SDK's own stdio client. */
async function spawnedBridge (t: Test, ...args: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['dist/cli/bin.js', 'mcp', ...args], cwd: root, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  const errors: Error[] = []
  client.onerror = (error) => { errors.push(error) }
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, transport, errors, stderr: () => stderr }
}

/** `svc-manifest mcp …` run in-process, with the SDK's client on the other end of its stdio. */
async function bridge (t: Test, ...args: string[]) {
  const cli = inProcessCli('mcp', ...args)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  t.teardown(() => client.close())
  return { client, cli }
}

function byName (tools: Tool[]): Map<string, Tool> {
  return new Map(tools.map((tool) => [tool.name, tool]))
}

t.test('spawned as a user runs it, against the running shop: tools from its manifest, calls through execute (in-process, the same)', async (t) => {
  const shop = await buildShop()
  const origin = await listening(t, shop)
  const manifest = await fetchManifest(shop)
  const { client, transport, errors, stderr } = await spawnedBridge(t, origin)
  t.same(client.getServerVersion(), { name: 'Shop', version: '2.3.0' })
  t.equal(client.getInstructions(), 'Demo shop')
  const tools = byName((await client.listTools()).tools)
  t.same([...tools.keys()], ['cart_add', 'cart_get', 'cart_remove', 'search'])
  for (const [name, command] of Object.entries(manifest.commands)) {
    const tool = tools.get(name.replaceAll('.', '_')) as Tool
    t.equal(tool.description, command.description, `${name}: description`)
    const params = command.params ?? {}
    t.same(tool.inputSchema.properties, Object.fromEntries(Object.entries(params).map(([param, { required, ...descriptor }]) => [param, descriptor])),
      `${name}: a property per param, its descriptor as the manifest says (bounds, enums, defaults)`)
    t.same(tool.inputSchema.required, Object.keys(params).filter((param) => params[param].required).sort().length > 0 ? Object.keys(params).filter((param) => params[param].required) : undefined, `${name}: required`)
    // The bridge knows no method: a command that may have side effects is taken as destructive.
    const readOnlyHint = command.hints?.sideEffects === false
    t.same(tool.annotations, { readOnlyHint, destructiveHint: !readOnlyHint, idempotentHint: command.hints?.idempotent ?? false, openWorldHint: false })
    compileInputSchema(tool)
  }
  t.same(textJson(await client.callTool({ name: 'search', arguments: { q: 'green' } })), [{ sku: 'tea-green', name: 'Green tea', price: 4.5 }])
  t.match(textJson(await client.callTool({ name: 'search', arguments: { q: 'tea', limit: 0 } })), { code: 'INVALID_PARAMS', message: 'querystring/limit must be >= 1' })
  const refused = await client.callTool({ name: 'cart_get', arguments: {} })
  t.equal(refused.isError, true)
  t.same(textJson(refused), { code: 'UNAUTHORIZED', message: 'Missing bearer credential. Send "Authorization: Bearer <token>".', status: 401, cause: 'FST_SVC_UNAUTHORIZED' })
  t.same(errors, [], 'stdout carried nothing but the protocol')
  t.match(stderr(), /^svc-manifest mcp: 4 tools of Shop 2\.3\.0 \(http:\/\/127\.0\.0\.1:\d+\/\.well-known\/svc\.json\) on stdio\n$/)
  const pid = transport.pid as number
  await client.close()
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the bridge ends when its input does')

  const user = await spawnedBridge(t, `${origin}/.well-known/svc.json`, '--token', DEMO_TOKEN)
  const cart = await user.client.callTool({ name: 'cart_add', arguments: { sku: 'kettle' } })
  t.same(cart.structuredContent, { items: [{ sku: 'kettle', quantity: 1 }], total: 24 }, '--token goes with every call')

  const inProcess = await bridge(t, origin)
  t.same((await inProcess.client.listTools()).tools, [...tools.values()], 'in-process: the same tools')
  t.same(await inProcess.client.callTool({ name: 'cart_get', arguments: {} }), refused, 'in-process: the same refusal')
})

t.test('in-process: registered types under $defs, about in the instructions, the end of input ends it', async (t) => {
  const Address = Type.Object({ city: Type.String({ description: 'City name' }) }, { description: 'Where to ship' })
  const Node = Type.Object({ name: Type.String(), parent: Type.Optional(Type.Ref('Node')) })
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, svc: '0.5.0', about: 'Ask for tea.', types: { Address, Node, Zip: Type.String() } })
  app.post('/ship', {
    svc: { description: 'Ship', params: Type.Object({ to: Type.Ref('Address'), from: Type.Optional(Type.Ref('Address')), node: Type.Ref('Node'), zip: Type.Ref('Zip') }) }
  }, async (request) => request.body)
  const origin = await listening(t, app)
  const { client, cli } = await bridge(t, origin)
  t.equal(client.getInstructions(), 'Demo shop\n\nAsk for tea.')
  const [ship] = (await client.listTools()).tools
  t.same(ship.inputSchema, {
    type: 'object',
    properties: {
      from: { $ref: '#/$defs/Address' },
      node: { $ref: '#/$defs/Node' },
      to: { $ref: '#/$defs/Address' },
      zip: { $ref: '#/$defs/Zip' }
    },
    required: ['to', 'node', 'zip'],
    $defs: {
      Address: { type: 'object', description: 'Where to ship', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      Node: { type: 'object', properties: { name: { type: 'string' }, parent: { $ref: '#/$defs/Node' } }, required: ['name'] },
      Zip: { type: 'string' }
    }
  })
  const validate = compileInputSchema(ship)
  t.ok(validate({ to: { city: 'Lyon' }, node: { name: 'a', parent: { name: 'b' } }, zip: '69000' }))
  t.notOk(validate({ to: { city: 1 }, node: {}, zip: '69000' }))
  const shipped = await client.callTool({ name: 'ship', arguments: { to: { city: 'Lyon' }, node: { name: 'a' }, zip: '69000' } })
  t.same(shipped.structuredContent, { to: { city: 'Lyon' }, node: { name: 'a' }, zip: '69000' })
  t.match(cli.stderr(), /^svc-manifest mcp: 1 tools of Shop 2\.3\.0/)
  await client.close()
  t.equal(await cli.exit, 0)
})

t.test('in-process: bytes as MCP content, a service that went away as a tool error', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions })
  app.get('/logo', { svc: { description: 'Logo' } }, async (request, reply) => reply.type('image/png').send(Buffer.from('png')))
  const origin = await listening(t, app)
  const { client } = await bridge(t, origin)
  t.same((await client.callTool({ name: 'logo', arguments: {} })).content, [{ type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' }])
  await app.close()
  const gone = await client.callTool({ name: 'logo', arguments: {} })
  t.equal(gone.isError, true)
  t.match(textJson(gone), { code: 'SVC_CLIENT_NETWORK', message: /^POST http:\/\/127\.0\.0\.1:\d+\/svc\/execute failed: / })
  t.notOk('status' in (textJson(gone) as object), 'no answer, no status')
})

t.test('in-process: a manifest whose param names a type it does not define is refused, exit 2', async (t) => {
  const commands = { mystery: { description: 'Takes a mystery', params: { thing: { type: 'Mystery', required: true } } } }
  const manifest: Manifest = {
    svc: '1.0', name: 'Odd', description: 'Odd service', version: '1.0.0', baseUrl: 'https://odd.example', commands, events: {}, types: {}, checksum: checksumOf(commands), updatedAt: new Date().toISOString()
  }
  const app = Fastify()
  app.get('/.well-known/svc.json', async () => manifest)
  const origin = await listening(t, app)
  const cli = inProcessCli('mcp', origin)
  t.equal(await cli.exit, 2)
  t.match(cli.stderr(), '/commands/mystery/params/thing/type: "Mystery" is neither a JSON type nor a type defined in /types')
})

t.test('commands that cannot be tools: exit 1, each one named', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions })
  app.get('/a/b', { svc: { name: 'a.b', description: 'A' } }, async () => null)
  app.get('/a_b', { svc: { name: 'a_b', description: 'B' } }, async () => null)
  app.get('/long', { svc: { name: `x${'y'.repeat(64)}`, description: 'Long' } }, async () => null)
  const origin = await listening(t, app)
  const cli = inProcessCli('mcp', origin)
  t.equal(await cli.exit, 1)
  t.equal(cli.stderr(), [
    `svc-manifest: ${origin}/.well-known/svc.json: some commands cannot be MCP tools:`,
    `  command "x${'y'.repeat(64)}" gives the tool name "x${'y'.repeat(64)}", which is not 1 to 64 letters, digits, "_" or "-"`,
    '  commands "a.b" and "a_b" are both the tool "a_b"',
    ''
  ].join('\n'))
})

t.test('usage and network errors: exit 2, one line on stderr', async (t) => {
  const notUrl = inProcessCli('mcp', 'shop.example')
  t.equal(await notUrl.exit, 2)
  t.equal(notUrl.stderr(), 'svc-manifest: mcp takes the http(s) URL of a manifest or a service; got "shop.example". Run svc-manifest mcp --help.\n')
  const unreachable = inProcessCli('mcp', 'http://127.0.0.1:9/.well-known/svc.json')
  t.equal(await unreachable.exit, 2)
  t.match(unreachable.stderr(), /^svc-manifest: GET http:\/\/127\.0\.0\.1:9\/\.well-known\/svc\.json failed: .+\n$/)
  const help = inProcessCli('mcp', '--help')
  t.equal(await help.exit, 0)
  t.match(help.stderr(), '')
})
