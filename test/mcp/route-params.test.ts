// MCP tools of an admin API shaped like a real one: a required `pg` header on every route, an array body,
// a `Type.Unknown()` field and `/:id(\\d+)`. The plugin's own /mcp and the stdio bridge both offer input
// schemas an agent can fill in, and tools/call places each param where the route reads it.
import { Client } from '@modelcontextprotocol/client'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { compileInputSchema, DRAFT_07, httpClient, inProcessCli, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

const Pg = Type.Object({ pg: Type.String({ description: 'Connection string' }), authorization: Type.Optional(Type.String()) })

function adminRoutes (app: FastifyInstance): void {
  app.get('/tables/:id(\\d+)', { schema: { summary: 'A table', headers: Pg }, svc: { name: 'tables.get' } }, async (request) => ({
    id: (request.params as { id: string }).id,
    pg: request.headers.pg
  }))
  app.post('/tables/bulk', {
    schema: { summary: 'Create tables', headers: Pg, body: Type.Array(Type.Object({ name: Type.String(), comment: Type.Unknown() }), { minItems: 1 }) },
    svc: { name: 'tables.bulk' }
  }, async (request) => ({ pg: request.headers.pg, created: request.body }))
}

async function app (t: Test, mcp: boolean): Promise<string> {
  const fastify = Fastify()
  await fastify.register(svcManifest, { ...requiredOptions, mcp })
  adminRoutes(fastify)
  return await listening(t, fastify)
}

const expectedInputs = {
  tables_get: {
    type: 'object',
    properties: { id: { type: 'string', pattern: '^\\d+$' }, pg: { type: 'string', description: 'Connection string' } },
    required: ['id', 'pg']
  },
  tables_bulk: {
    type: 'object',
    properties: {
      pg: { type: 'string', description: 'Connection string' },
      body: { type: 'array', minItems: 1, items: { type: 'object', properties: { name: { type: 'string' }, comment: {} }, required: ['name', 'comment'] } }
    },
    required: ['pg', 'body']
  }
}

t.test('/mcp: header params, the whole body, any and the URL\'s pattern in the input schemas; calls reach the route', async (t) => {
  const client = await httpClient(t, `${await app(t, true)}/mcp`)
  const tools = (await client.listTools()).tools
  for (const tool of tools) {
    compileInputSchema(tool)
    t.same(tool.inputSchema, { $schema: DRAFT_07, ...expectedInputs[tool.name as keyof typeof expectedInputs] }, tool.name)
  }
  const got = await client.callTool({ name: 'tables_get', arguments: { id: '12', pg: 'postgres://db' } })
  t.same(got.structuredContent, { id: '12', pg: 'postgres://db' })
  const created = await client.callTool({ name: 'tables_bulk', arguments: { pg: 'postgres://db', body: [{ name: 'a', comment: { any: ['json'] } }] } })
  t.same(created.structuredContent, { pg: 'postgres://db', created: [{ name: 'a', comment: { any: ['json'] } }] })
  const astray = await client.callTool({ name: 'tables_get', arguments: { id: 'bulk', pg: 'postgres://db' } })
  t.match(textJson(astray), { code: 'INVALID_PARAMS' })
})

t.test('the stdio bridge builds the same from the manifest: any as {}, header params and body as params', async (t) => {
  const cli = inProcessCli('mcp', await app(t, false))
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  t.teardown(() => client.close())
  const tools = (await client.listTools()).tools
  for (const tool of tools) {
    compileInputSchema(tool)
    t.same(tool.inputSchema, expectedInputs[tool.name as keyof typeof expectedInputs], tool.name)
  }
  const created = await client.callTool({ name: 'tables_bulk', arguments: { pg: 'postgres://db', body: [{ name: 'a', comment: null }] } })
  t.same(textJson(created), { pg: 'postgres://db', created: [{ name: 'a', comment: null }] })
})
