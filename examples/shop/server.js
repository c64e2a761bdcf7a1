// Starts the shop on 127.0.0.1. PORT (default 3000) picks the port, SVC_LAYOUT=0.5.0 the older layout,
// SVC_MCP=1 serves the commands as MCP tools at /mcp too.
import { buildShop, DEMO_TOKEN } from './app.js'

const mcp = process.env.SVC_MCP === '1'
const app = await buildShop({ layout: process.env.SVC_LAYOUT, mcp })
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) })

const { port } = app.server.address()
console.log(`Manifest: http://127.0.0.1:${port}/.well-known/svc.json`)
if (mcp) console.log(`MCP (Streamable HTTP): http://127.0.0.1:${port}/mcp`)
console.log(`Cart commands need: Authorization: Bearer ${DEMO_TOKEN}`)
