// The MCP benchmark's server, run as a child process (`fork`) so that the load generator in the parent does
// not share its event loop. One app with MCP on: the invocation benchmark's command route (path and query
// params validated by its schemas) and, for the larger sizes, more commands beside it (bench/routes.js);
// a channel is declared, so that a 2025 client that initializes gets a session, as it does in an app with
// channels. Beside it, at /bare, the SDK alone: its handler with one trivial tool, no plugin, mounted as the
// SDK's docs mount it (the web request built from Fastify's, the body handed over parsed): what the SDK
// itself costs per call. `node bench/mcp-server.js <commands>`.
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { createMcpHandler, Server } from '@modelcontextprotocol/server'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, addProductsRoute, manifestOptions } from './routes.js'

const commands = Number(process.argv[2] ?? 1)
const app = Fastify()
await app.register(svcManifest, { ...manifestOptions, svc: '0.5.0', mcp: true, channels: { shelf: { description: 'A shelf' } } })
addProductsRoute(app, { inObject: true })
addCommandRoutes(app, commands - 1)

const bare = createMcpHandler(() => {
  const server = new Server({ name: 'Bare', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'ping', inputSchema: { type: 'object' } }] }))
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'pong' }] }))
  return server
})
app.post('/bare', async (request, reply) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) headers.set(name, String(value))
  const response = await bare.fetch(new Request('http://localhost/bare', { method: 'POST', headers }), { parsedBody: request.body })
  reply.code(response.status)
  for (const [name, value] of response.headers) reply.header(name, value)
  return await response.text()
})
await app.listen({ host: '127.0.0.1', port: 0 })

let profiler
process.on('message', async (message) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send({ type: 'cpu', micros: user + system })
  } else if (message.type === 'profile-start') {
    // A CPU profile of the load alone (bench/mcp-profile.js): start-up is not in it.
    profiler = new Session()
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
    process.send({ type: 'profile-start' })
  } else if (message.type === 'profile-stop') {
    const { profile } = await profiler.post('Profiler.stop')
    await writeFile(message.path, JSON.stringify(profile))
    profiler.disconnect()
    process.send({ type: 'profile-stop' })
  } else if (message.type === 'close') {
    await app.close()
    process.exit(0)
  }
})
process.send({ type: 'listening', port: app.server.address().port })
