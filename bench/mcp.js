// MCP: `tools/call` of a command against `POST /svc/execute` of the same command, in the same server, rounds
// alternating (execute, 2026-07-28 call, 2025-11-25 session call, 2025-06-18 call without a session, tools/list …), by the server's CPU time per
// request; at 1 command and at 501 (DESIGN §11). Ratios are taken per round: execute's CPU per request over
// the MCP request's (the rate of MCP calls against execute's, CPU for CPU).
import { fork } from 'node:child_process'
import { once } from 'node:events'
import autocannon from 'autocannon'
import { median, waitForBuild } from './stats.js'

const CONNECTIONS = 10
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const PARAMS = { shelf: 'kitchen', q: 'te', limit: 3 }
const EXECUTE_BODY = JSON.stringify({ command: 'products.find', params: PARAMS })
const ACCEPT = 'application/json, text/event-stream'
/** What the v2 client puts in every 2026-07-28 request. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {}
}

/** The requests measured, by name: each a function of the server (its port, its session) to an autocannon target. */
export const TARGETS = {
  execute: ({ base }) => ({ url: `${base}/svc/execute`, method: 'POST', headers: { 'content-type': 'application/json' }, body: EXECUTE_BODY }),
  modernCall: ({ base }) => ({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'products_find' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products_find', arguments: PARAMS, _meta: ENVELOPE } })
  }),
  sessionCall: ({ base, session }) => ({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': LEGACY, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products_find', arguments: PARAMS } })
  }),
  legacyCall: ({ base }) => ({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products_find', arguments: PARAMS } })
  }),
  bareSdkCall: ({ base }) => ({
    url: `${base}/bare`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'ping' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {}, _meta: ENVELOPE } })
  }),
  modernList: ({ base }) => ({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } })
  })
}

/**
 * Server CPU µs per request of each target named in `names` (execute first), at `commands` commands, in
 * `rounds` alternating rounds of `duration` s; `ratios[name]`: execute's CPU over the target's, per round.
 */
export async function measureMcp (commands, names, { rounds, duration }) {
  const server = await startServer(commands)
  try {
    const base = `http://127.0.0.1:${server.port}`
    const session = await openSession(base)
    const targets = Object.fromEntries(names.map((name) => [name, TARGETS[name]({ base, session })]))
    await assertSameResult(targets)
    for (const target of Object.values(targets)) await load(target, 1)
    const cpu = Object.fromEntries(names.map((name) => [name, []]))
    for (let round = 0; round < rounds; round++) {
      for (const name of names) cpu[name].push(await measureRound(server, targets[name], duration))
    }
    const ratios = Object.fromEntries(names.map((name) => [name, cpu.execute.map((execute, index) => execute / cpu[name][index])]))
    return { cpu: Object.fromEntries(names.map((name) => [name, median(cpu[name])])), ratios }
  } finally {
    await stopServer(server)
  }
}

/** A 2025-11-25 session, opened as the v1 client opens one: `initialize`, then `notifications/initialized`. */
export async function openSession (base) {
  const headers = { 'content-type': 'application/json', accept: ACCEPT }
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } }
  const opened = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(initialize) })
  await opened.text()
  const session = opened.headers.get('mcp-session-id')
  if (session === null) throw new Error(`initialize answered ${opened.status} without a session`)
  const initialized = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': LEGACY },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })
  })
  await initialized.text()
  return session
}

/** Each MCP call must answer what execute answers (and tools/list list the tools), or the comparison means nothing. */
async function assertSameResult (targets) {
  const answer = async ({ url, method, headers, body }) => {
    const response = await fetch(url, { method, headers, body })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`)
    // Either JSON or one SSE event: its data line is the message.
    return JSON.parse(response.headers.get('content-type')?.startsWith('text/event-stream') === true ? /^data: (.*)$/m.exec(text)[1] : text)
  }
  const executed = await answer(targets.execute)
  if (executed.ok !== true) throw new Error(`execute failed: ${JSON.stringify(executed)}`)
  for (const [name, target] of Object.entries(targets)) {
    if (name === 'execute') continue
    const { result } = await answer(target)
    if (name === 'bareSdkCall') {
      if (result?.content?.[0]?.text !== 'pong') throw new Error(`the bare SDK answered ${JSON.stringify(result)}`)
    } else if (name === 'modernList') {
      if (!(result?.tools?.length > 0)) throw new Error(`tools/list answered ${JSON.stringify(result)}`)
    } else if (JSON.stringify(result?.structuredContent) !== JSON.stringify(executed.result)) {
      throw new Error(`${name} answered ${JSON.stringify(result)} where execute answered ${JSON.stringify(executed.result)}`)
    }
  }
}

/** Server CPU µs per request over one round of load (also the audiences benchmark's). */
export async function measureRound (server, target, duration) {
  const before = await serverCpu(server)
  const result = await load(target, duration)
  const after = await serverCpu(server)
  return (after - before) / result.requests.total
}

export async function load (target, duration) {
  const result = await autocannon({ ...target, connections: CONNECTIONS, duration })
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`${target.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`)
  }
  return result
}

async function serverCpu (server) {
  const answered = once(server.child, 'message')
  server.child.send({ type: 'cpu' })
  const [{ micros }] = await answered
  return micros
}

/** The server in a child process; `execArgv`: its Node flags (`--cpu-prof` to profile it). */
export async function startServer (commands, execArgv = []) {
  await waitForBuild()
  const child = fork(new URL('./mcp-server.js', import.meta.url), [String(commands)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv })
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new Error(`MCP benchmark server exited with code ${code}`) })
  ])
  return { child, ...message }
}

export async function stopServer (server) {
  const exited = once(server.child, 'exit')
  server.child.send({ type: 'close' })
  await exited
}
