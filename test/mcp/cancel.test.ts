import type { Client } from '@modelcontextprotocol/client'
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { httpClient, legacyHttpClient } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

// MCP cancellation (docs/mcp.md#progress-and-cancellation): a client that cancels a tools/call stops its
// route (request.svc.signal aborts, the route's request closes) within a fraction of a second, on every
// revision: 2026-07-28 by closing its request, 2025 in a session by notifications/cancelled, and a 2025
// request without a session by closing it. With a progress token (the SDK's path) and without (answered
// directly).

/** Generous: the machine may be loaded; the route would otherwise run for ever. */
const WITHIN_MS = 2000

interface Job {
  /** Resolves when the route has started. */
  started: Promise<void>
  /** Resolves with the time from abort to the route's signal, and whether its request closed. */
  stopped: Promise<{ reason: unknown, closed: boolean }>
}

/** An app whose `job` command runs until its signal aborts; each call is handed to `next`. */
async function jobApp (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<{ url: string, next: () => Job }> {
  const jobs: Array<{ start: () => void, stop: (value: { reason: unknown, closed: boolean }) => void }> = []
  const pending: Job[] = []
  const next = (): Job => {
    let start!: () => void
    let stop!: (value: { reason: unknown, closed: boolean }) => void
    const job = { started: new Promise<void>((resolve) => { start = resolve }), stopped: new Promise<{ reason: unknown, closed: boolean }>((resolve) => { stop = resolve }) }
    jobs.push({ start, stop })
    pending.push(job)
    return job
  }
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true, ...options })
  app.get('/job', { svc: { name: 'job', description: 'Runs until cancelled' } }, async (request) => {
    const { start, stop } = jobs.shift() as typeof jobs[number]
    let closed = false
    request.raw.on('close', () => { closed = true })
    request.svc.progress(1, { message: 'started' })
    start()
    const { signal } = request.svc
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    // The request closes as the signal aborts: a turn later at most.
    await new Promise((resolve) => setImmediate(resolve))
    stop({ reason: signal.reason, closed })
    return { finished: true }
  })
  return { url: `${await listening(t, app)}/mcp`, next }
}

async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms) })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

type Call = (signal: AbortSignal, progress: boolean) => Promise<unknown>

function v2Call (client: Client): Call {
  return async (signal, progress) => await client.callTool({ name: 'job', arguments: {} }, progress ? { signal, onprogress: () => {} } : { signal })
}

function v1Call (client: V1Client): Call {
  return async (signal, progress) => await client.callTool({ name: 'job', arguments: {} }, undefined, progress ? { signal, onprogress: () => {} } : { signal })
}

async function cancels (t: Test, next: () => Job, call: Call, label: string): Promise<void> {
  for (const progress of [false, true]) {
    const what = `${label}, ${progress ? 'with' : 'without'} a progress token`
    const job = next()
    const aborter = new AbortController()
    const answer = call(aborter.signal, progress)
    answer.catch(() => {})
    await within(job.started, WITHIN_MS * 2, `${what}: the route starts`)
    const abortedAt = Date.now()
    aborter.abort()
    const { reason, closed } = await within(job.stopped, WITHIN_MS, `${what}: the route's signal aborts`)
    t.ok(Date.now() - abortedAt < WITHIN_MS, `${what}: request.svc.signal aborted ${Date.now() - abortedAt} ms after the client cancelled`)
    t.match(reason, { name: 'AbortError', status: 503, code: 'INTERNAL_ERROR' }, `${what}: the reason names the cause`)
    t.ok(closed, `${what}: the route's request closed`)
    await t.rejects(answer, `${what}: the client's call rejects, never a success`)
  }
}

t.test('2026-07-28: the client closes its request', async (t) => {
  const { url, next } = await jobApp(t)
  await cancels(t, next, v2Call(await httpClient(t, url)), '2026-07-28')
})

t.test('2025 in a session (an app with channels): notifications/cancelled, matched by session and request id', async (t) => {
  const { url, next } = await jobApp(t, { svc: '0.5.0', channels: { cart: { description: 'A cart' } } })
  await cancels(t, next, v1Call(await legacyHttpClient(t, url)), '2025-11-25 (v1 client)')
  await cancels(t, next, v2Call(await httpClient(t, url, {}, ['2025-06-18'])), '2025-06-18 (v2 client)')
})

t.test('a cancel names only calls of its own session', async (t) => {
  const { url, next } = await jobApp(t, { svc: '0.5.0', channels: { cart: { description: 'A cart' } } })
  const client = await legacyHttpClient(t, url)
  const other = await legacyHttpClient(t, url)
  const job = next()
  const answer = client.callTool({ name: 'job', arguments: {} })
  answer.catch(() => {})
  await within(job.started, WITHIN_MS * 2, 'the route starts')
  // The other session's client sends the cancel its own request id 1 would need: the first client's call is id 1 too.
  await other.notification({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'not yours' } })
  await new Promise((resolve) => setTimeout(resolve, 100))
  const stopped = await Promise.race([job.stopped, new Promise((resolve) => setTimeout(() => resolve('running'), 100))])
  t.equal(stopped, 'running', 'another session\'s cancel leaves the call running')
  await client.notification({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'mine' } })
  await within(job.stopped, WITHIN_MS, 'its own session\'s cancel stops it')
  await t.rejects(within(answer, 300, 'no answer'), 'a cancelled call is never answered')
})

/** A 2025 tools/call posted without a session, aborted once the route runs: the request closes. */
async function rawLegacyCall (url: string, job: Job, progress: boolean): Promise<void> {
  const aborter = new AbortController()
  const params: Record<string, unknown> = { name: 'job', arguments: {} }
  if (progress) params._meta = { progressToken: 7 }
  const response = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    signal: aborter.signal
  })
  await within(job.started, WITHIN_MS * 2, 'the route starts')
  aborter.abort()
  await response.then(async (answer) => await answer.body?.cancel(), () => {}).catch(() => {})
}

t.test('2025 without a session: the client closes its request, answered directly or by the SDK', async (t) => {
  const { url, next } = await jobApp(t)
  for (const progress of [false, true]) {
    const job = next()
    const calling = rawLegacyCall(url, job, progress)
    const { reason, closed } = await within(job.stopped, WITHIN_MS * 2, 'the route\'s signal aborts')
    t.match(reason, { status: 503, code: 'INTERNAL_ERROR' }, `${progress ? 'with' : 'without'} a progress token: the signal aborts`)
    t.ok(closed)
    await calling
  }
})
