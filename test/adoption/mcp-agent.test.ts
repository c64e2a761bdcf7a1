// The same agent, through MCP: it knows only the tools the app's /mcp lists (names, annotations, input
// schemas) and calls each one with the official SDK client.
import type { Tool } from '@modelcontextprotocol/client'
import t from 'tap'
import { buildRealWorldApp } from '../fixtures/realworld/app.js'
import { type Command, CREATE, DELETE, fieldOf, READ, runAgent, UPDATE } from '../fixtures/realworld/agent.js'
import { httpClient } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

/** Where a tool goes in the agent's order, from its annotations alone. */
function rankOf (tool: Tool): number {
  const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations ?? {}
  return destructiveHint === true ? DELETE : readOnlyHint === true ? READ : idempotentHint === true ? UPDATE : CREATE
}

t.test('from the tools alone, an agent calls every tool of the app over MCP', async (t) => {
  const app = await buildRealWorldApp({ mcp: true })
  const origin = await listening(t, app)
  const anonymous = await httpClient(t, `${origin}/mcp`)
  const { tools } = await anonymous.listTools()
  t.ok(tools.length >= 15, `the app has ${tools.length} tools`)

  const commands: Command[] = tools.map((tool) => {
    const schema = tool.inputSchema as Record<string, unknown>
    return { name: tool.name, rank: rankOf(tool), depth: tool.name.split('_').length, params: fieldOf(schema, schema).properties ?? {} }
  })
  const clients = new Map<string, typeof anonymous>()
  const run = await runAgent(commands, {}, async (name, params, token) => {
    let client = anonymous
    if (token !== undefined) {
      // A client per credential: the token goes in the Authorization header of every request it sends.
      client = clients.get(token) ?? await httpClient(t, `${origin}/mcp`, { authorization: `Token ${token}` })
      clients.set(token, client)
    }
    const result = await client.callTool({ name, arguments: params })
    const content = result.content as { type: string, text?: string }[]
    const text = content.find((part) => part.type === 'text')?.text ?? ''
    if (result.isError === true) return { ok: false, error: text }
    return { ok: true, result: result.structuredContent ?? (text === '' ? null : JSON.parse(text)) }
  })

  t.same(run.calls.map((call) => call.command).sort(), tools.map((tool) => tool.name).sort(), 'every tool was called once')
  t.same(run.failures, {}, 'every tool answered without isError')
  t.same(run.gaps, [], 'the input schemas described every field the agent had to fill')
  t.comment(`called ${run.calls.length - Object.keys(run.failures).length} of ${run.calls.length}: ${run.calls.map((call) => `${call.command}${call.outcome.ok ? '' : ' (failed)'}`).join(', ')}`)
})
