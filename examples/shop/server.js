// Starts the shop on 127.0.0.1, with its page for people at /svc/ui, /llms.txt and the API catalog
// (/.well-known/api-catalog) for agents, and its long-running commands (a stream of orders, a report with
// progress: run them from the page, or streamed with curl). PORT (default 3000; 0 for any free
// port) picks the port, SVC_LAYOUT=0.5.0 the older layout, SVC_MCP=1 serves the commands as MCP tools at
// /mcp too, REDIS_URL (e.g. redis://127.0.0.1:6379) shares events with the other instances on that Redis.
// The manifest's baseUrl is the address the shop really listens on.
import { createServer } from 'node:net'
import { ADMIN_TOKEN, buildShop, DEMO_TOKEN } from './app.js'

const port = await portToUse(Number(process.env.PORT ?? 3000))
const baseUrl = `http://127.0.0.1:${port}`
const mcp = process.env.SVC_MCP === '1'
const app = await buildShop({ layout: process.env.SVC_LAYOUT, baseUrl, mcp, ui: true, discovery: true, longRunning: true, products: true, redis: process.env.REDIS_URL })
await app.listen({ host: '127.0.0.1', port })

console.log(`Manifest: ${baseUrl}/.well-known/svc.json`)
console.log(`Browse it and try the commands: ${baseUrl}/svc/ui`)
console.log(`For a language model: ${baseUrl}/llms.txt`)
console.log(`Call a command: curl -s ${baseUrl}/svc/execute -H 'content-type: application/json' -d '{"command":"search","params":{"q":"tea"}}'`)
console.log(`Every product, page by page: svc-manifest call ${baseUrl} products --all-pages`)
console.log(`Watch a command stream: curl -N ${baseUrl}/svc/execute -H 'content-type: application/json' -d '{"command":"orders.live","params":{},"stream":true}'`)
if (mcp) console.log(`MCP (Streamable HTTP): ${baseUrl}/mcp`)
console.log(`Cart commands need: Authorization: Bearer ${DEMO_TOKEN}`)
console.log(`Watch the cart's events: curl -N ${baseUrl}/svc/events -H 'authorization: Bearer ${DEMO_TOKEN}'`)
console.log(`The shop keeper's view, with the hidden admin.sales: curl -s ${baseUrl}/.well-known/svc.json -H 'authorization: Bearer ${ADMIN_TOKEN}'`)

/** The manifest names its address before the server listens: port 0 becomes a port that is free now. */
async function portToUse (wanted) {
  if (wanted !== 0) return wanted
  const probe = createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  return port
}
