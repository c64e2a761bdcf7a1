// Defect: `svc-manifest mcp <url>` copied ESC, BEL and the other control characters of a remote manifest
// into the server's name and instructions, the tools' descriptions and their input schemas, where MCP
// clients show them to people and models: a hostile service could recolour or retitle a terminal, or hide
// and reorder text with bidi controls. Now every text the bridge takes from the manifest loses the control
// characters the CLI escapes on a terminal (the same list), tab and line feed kept; a default holding them
// is left out; a param or field whose name holds them is refused, since a call must send it back as it is.
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import type { Manifest } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { compileInputSchema, inProcessCli, textJson } from '../helpers/mcp.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

const ESC = '\u001b'
const BEL = '\u0007'
const TITLE = `${ESC}]0;pwned${BEL}`
const RLO = '\u202e'
const LRI = '\u2066'
const PDI = '\u2069'
const CSI = '\u009b'

/** Control characters a description may not carry: every one of the CLI's list but tab and line feed. */
// eslint-disable-next-line no-control-regex -- the test looks for control characters
const SHOWN_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** Every string in a JSON value, keys included. */
function strings (value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)])
}

const commands: Manifest['commands'] = {
  search: {
    description: `Search${TITLE} the catalogue${ESC}[2K\r\nSecond line,\tafter a tab\u0085${CSI}31m`,
    params: {
      q: { type: 'string', required: true, description: `Words${LRI} to find${PDI}\u200e\u200f\u061c\u007f\b` },
      sort: { type: 'string', required: false, default: 'price', description: 'Order' },
      mode: { type: 'string', required: false, default: `fast${RLO}wols` },
      tags: { type: 'array', required: false, default: ['tea', `mug${ESC}[8m`] },
      filter: { type: 'object', required: false, default: { [`k${BEL}`]: 1 } },
      where: { type: 'object', required: false, default: { city: 'Lyon', zip: null, codes: [1, 2] } },
      limit: { type: 'integer', required: false, default: 10 },
      to: { type: 'Address', required: false, description: `Ship${'\u2028'}to` }
    },
    hints: { sideEffects: false }
  }
}

const types: Manifest['types'] = {
  Address: { type: 'object', description: `Where${RLO}txt.exe`, properties: { city: { type: 'string', required: true, description: `City${'\u009d'}` }, zip: { type: 'Zip', required: false } } },
  Zip: { type: 'string', description: `Postal${ESC}c code` }
}

const hostileManifest = manifestOf(commands, {
  svc: '0.5.0',
  channels: {},
  types,
  name: `Shop${RLO}gnp.exe`,
  version: `2.3.0${ESC}[31m`,
  description: `Demo${BEL} shop`,
  about: `Ask for tea.${CSI}2J\n\tIndented line.`
} as Partial<Manifest>)

/** The tool a client must see: every text without its control characters, tab and line feed kept. */
const expected: Tool = {
  name: 'search',
  title: 'Search',
  description: 'Search]0;pwned the catalogue[2K\nSecond line,\tafter a tab31m',
  inputSchema: {
    type: 'object',
    properties: {
      q: { type: 'string', description: 'Words to find' },
      sort: { type: 'string', description: 'Order', default: 'price' },
      mode: { type: 'string' },
      tags: { type: 'array' },
      filter: { type: 'object' },
      where: { type: 'object', default: { city: 'Lyon', zip: null, codes: [1, 2] } },
      limit: { type: 'integer', default: 10 },
      to: { $ref: '#/$defs/Address', description: 'Shipto' }
    },
    required: ['q'],
    $defs: {
      Address: { type: 'object', description: 'Wheretxt.exe', properties: { city: { type: 'string', description: 'City' }, zip: { $ref: '#/$defs/Zip' } }, required: ['city'] },
      Zip: { type: 'string', description: 'Postalc code' }
    }
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false }
}

/** Serves `manifest` at /.well-known/svc.json and answers every execute with `{ found: 1 }`. */
async function serve (t: Test, manifest: Manifest): Promise<string> {
  const { origin } = await rawServer(t, (request, response) => {
    if (request.url === '/svc/execute') return sendJson(response, { ok: true, result: { found: 1 } })
    sendJson(response, manifest)
  })
  return origin
}

t.test('spawned as a desktop client starts it: no control character but tab and line feed reaches the client', async (t) => {
  const origin = await serve(t, hostileManifest)
  const transport = new StdioClientTransport({ command: process.execPath, args: ['dist/cli/bin.js', 'mcp', origin], cwd: root, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())

  const { tools } = await client.listTools()
  t.same(tools, [expected])
  t.same(strings(tools).filter((text) => SHOWN_CONTROL.test(text)), [], 'no string of the tools carries one')
  t.same(client.getServerVersion(), { name: 'Shopgnp.exe', version: '2.3.0[31m' })
  t.equal(client.getInstructions(), 'Demo shop\n\nAsk for tea.2J\n\tIndented line.')
  compileInputSchema(tools[0] as Parameters<typeof compileInputSchema>[0])
  t.same(textJson(await client.callTool({ name: 'search', arguments: { q: 'tea' } })), { found: 1 }, 'calls go through as before')
  t.match(stderr, /^svc-manifest mcp: 1 tools of Shop\\u202egnp\.exe 2\.3\.0\\u001b\[31m \(/, 'its own line on stderr escapes them, as the CLI does')
})

t.test('in-process: the same tools, server info and instructions', async (t) => {
  const origin = await serve(t, hostileManifest)
  const cli = inProcessCli('mcp', origin)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  t.same((await client.listTools()).tools, [expected])
  t.same(client.getServerVersion(), { name: 'Shopgnp.exe', version: '2.3.0[31m' })
  t.equal(client.getInstructions(), 'Demo shop\n\nAsk for tea.2J\n\tIndented line.')
  await client.close()
  t.equal(await cli.exit, 0)

  // Layout 1.0 has no about: the description alone.
  const plain = await serve(t, manifestOf({ ping: { description: 'Ping' } }, { description: `Plain${ESC}[1m shop` }))
  const other = inProcessCli('mcp', plain)
  const second = new Client({ name: 'test-client', version: '1.0.0' })
  await second.connect(other.transport)
  t.equal(second.getInstructions(), 'Plain[1m shop')
  // Without hints, the bridge (which does not know the route's method) cannot say the command is harmless.
  t.same((await second.listTools()).tools, [{
    name: 'ping',
    title: 'Ping',
    description: 'Ping',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
  }])
  await second.close()
  t.equal(await other.exit, 0)
})

t.test('a param or a type field whose name holds control characters: refused, exit 1, each one named', async (t) => {
  const named = manifestOf({
    search: { description: 'Search', params: { [`q${ESC}[2J`]: { type: 'string', required: true }, 'tab\there': { type: 'string', required: false } } },
    ship: { description: 'Ship', params: { to: { type: 'Address', required: true } } },
    ping: { description: 'Ping' }
  }, { types: { Address: { type: 'object', properties: { [`city${RLO}`]: { type: 'string', required: true }, zip: { type: 'string', required: true } } } } })
  const origin = await serve(t, named)
  const cli = inProcessCli('mcp', origin)
  t.equal(await cli.exit, 1)
  t.equal(cli.stderr(), [
    `svc-manifest: ${origin}/.well-known/svc.json: some commands cannot be MCP tools:`,
    '  command "search": param "q\\u001b[2J" has control characters in its name',
    '  command "search": param "tab\\u0009here" has control characters in its name',
    '  command "ship": field "city\\u202e" of type Address has control characters in its name',
    ''
  ].join('\n'))
})
