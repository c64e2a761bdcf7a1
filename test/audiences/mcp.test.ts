import type { Client } from '@modelcontextprotocol/client'
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import t, { type Test } from 'tap'
import { audienceShop, withToken } from '../helpers/audiences.js'
import { httpClient, legacyHttpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

type AnyClient = Pick<Client, 'listTools' | 'callTool'> | Pick<V1Client, 'listTools' | 'callTool'>

/** Each way a client speaks to the endpoint: 2026-07-28 (answered directly), 2025 without a session and, with channels, in one. */
const CLIENTS: Array<[string, (t: Test, url: string, headers: Record<string, string>) => Promise<AnyClient>]> = [
  ['2026-07-28', async (t, url, headers) => await httpClient(t, url, headers)],
  ['2025-06-18 (v2 client)', async (t, url, headers) => await httpClient(t, url, headers, ['2025-06-18'])],
  ['2025-11-25 (v1 client)', async (t, url, headers) => await legacyHttpClient(t, url, headers)]
]

async function toolNames (client: AnyClient): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name)
}

/** What a client gets for calling a tool: the result, or the JSON-RPC error it threw. */
async function callOutcome (client: AnyClient, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  try {
    return await client.callTool({ name, arguments: args })
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message }
  }
}

for (const channels of [false, true]) {
  t.test(`tools/list and tools/call follow the credential's view${channels ? ', in sessions (channels declared)' : ''}`, async (t) => {
    const app = await audienceShop(t, {
      options: { mcp: true, ...(channels && { svc: '0.5.0', channels: { cart: { description: 'A cart' } } }) }
    })
    const url = `${await listening(t, app)}/mcp`
    for (const [label, connect] of CLIENTS) {
      const anonymous = await connect(t, url, {})
      const user = await connect(t, url, withToken('user-token'))
      const ops = await connect(t, url, withToken('ops-token'))
      const admin = await connect(t, url, withToken('admin-token'))
      const refused = await connect(t, url, withToken('wrong-token'))
      t.same(await toolNames(anonymous), ['catalog_list', 'orders_list'], `${label}: no credential, the public tools`)
      t.same(await toolNames(user), ['catalog_list', 'orders_list'], `${label}: a credential that sees no hidden command`)
      t.same(await toolNames(refused), ['catalog_list', 'orders_list'], `${label}: a refused credential`)
      t.same(await toolNames(ops), ['catalog_list', 'ops_restart', 'orders_list'], `${label}: the ops view`)
      t.same(await toolNames(admin), ['admin_stats', 'catalog_list', 'ops_restart', 'orders_list'], `${label}: the admin view`)

      const unknown = await callOutcome(user, 'nothing_here')
      const hidden = await callOutcome(user, 'admin_stats')
      t.match(unknown, { message: /Unknown tool "nothing_here"/ }, `${label}: an unknown tool`)
      t.same(hidden, { ...unknown as object, message: (unknown as { message: string }).message.replace('nothing_here', 'admin_stats') }, `${label}: a hidden tool is unknown, in the same words`)
      t.match(await callOutcome(ops, 'admin_stats'), { message: /Unknown tool "admin_stats"/ }, `${label}: and without its scope`)
      t.same(textJson(await admin.callTool({ name: 'admin_stats', arguments: {} }) as Record<string, unknown>), { sales: 42, by: 'root' }, `${label}: the admin calls it`)
      t.same(textJson(await ops.callTool({ name: 'ops_restart', arguments: { worker: 'w2' } }) as Record<string, unknown>), { restarted: 'w2' }, `${label}: ops calls its own`)
    }
  })
}

t.test('a view\'s tools are made once and kept', async (t) => {
  const app = await audienceShop(t, { options: { mcp: true } })
  const url = `${await listening(t, app)}/mcp`
  const first = await httpClient(t, url, withToken('admin-token'))
  const second = await httpClient(t, url, withToken('admin-token'))
  t.same((await first.listTools()).tools, (await second.listTools()).tools)
})
