import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// Measured: one JSON-RPC batch on /mcp triggered 100 inner requests, where a pipeline is capped at 16 steps.
// A batch may now hold at most invoke.maxSteps messages, whatever they are.

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' }

async function service (t: Parameters<typeof listening>[0], options: Partial<SvcManifestOptions> = {}) {
  const calls = { count: 0 }
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true, ...options })
  app.get('/count', { svc: { name: 'count', description: 'Counts its calls' } }, async () => ({ count: ++calls.count }))
  const url = `${await listening(t, app)}/mcp`
  return { url, calls }
}

function calls (count: number): unknown[] {
  return Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', id: index + 1, method: 'tools/call', params: { name: 'count', arguments: {} } }))
}

t.test('a batch of 100 tool calls is refused whole, before any call runs', async (t) => {
  const { url, calls: counter } = await service(t)
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(calls(100)) })
  t.equal(response.status, 400)
  t.same(await response.json(), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'A JSON-RPC batch may hold at most 16 messages; this one holds 100.' }
  })
  t.equal(counter.count, 0)
})

t.test('a batch of notifications counts the same; invoke.maxSteps sets the cap, also with invoke off', async (t) => {
  const { url } = await service(t, { invoke: { maxSteps: 2 } })
  const notifications = Array.from({ length: 3 }, () => ({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  const refused = await fetch(url, { method: 'POST', headers, body: JSON.stringify(notifications) })
  t.equal(refused.status, 400)
  t.match(((await refused.json()) as { error: { message: string } }).error.message, 'at most 2 messages; this one holds 3')
  const off = await service(t, { invoke: false })
  const atDefault = await fetch(off.url, { method: 'POST', headers, body: JSON.stringify(calls(17)) })
  t.match(((await atDefault.json()) as { error: { message: string } }).error.message, 'at most 16 messages; this one holds 17')
})
