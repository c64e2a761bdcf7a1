import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Progress } from '@modelcontextprotocol/client'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { MAX_PIECE_MESSAGE, PROGRESS_INTERVAL_MS, ProgressNotifier } from '../../lib/mcp/progress.js'
import { requiredOptions } from '../helpers/app.js'
import { httpClient, legacyHttpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

// MCP progress (docs/mcp.md#progress-and-cancellation): a tools/call with a progress token gets the route's
// request.svc.progress() reports as notifications/progress, and a stream: true command's pieces, on one
// increasing counter; the tool result is the buffered one. Every revision: 2026-07-28, and 2025 with and
// without a session.

function routes (app: FastifyInstance): void {
  app.get('/report', { svc: { name: 'report', description: 'Reports its progress' } }, async (request) => {
    request.svc.progress(1, { total: 3, message: 'one' })
    await sleep(PROGRESS_INTERVAL_MS + 20)
    request.svc.progress(2, { total: 3 })
    await sleep(PROGRESS_INTERVAL_MS + 20)
    request.svc.progress(3, { total: 3, message: 'done' })
    return { done: true }
  })
  app.get('/burst', { svc: { name: 'burst', description: 'Reports progress faster than it is sent' } }, async (request) => {
    for (let step = 1; step <= 200; step++) request.svc.progress(step, { total: 200 })
    await sleep(10)
    return 'burst'
  })
  app.get('/export', { svc: { name: 'export', description: 'Rows as NDJSON, with progress between them', stream: true } }, (request, reply) => {
    async function * rows (): AsyncGenerator<string> {
      yield '{"id":1}\n'
      await sleep(20)
      request.svc.progress(5, { total: 10, message: 'halfway' })
      await sleep(20)
      yield `{"id":2,"text":"${'x'.repeat(2 * MAX_PIECE_MESSAGE)}"}\n`
      await sleep(20)
      yield 'plain'
      await sleep(20)
      yield ' text\n{"id":3}'
    }
    return reply.type('application/x-ndjson').send(Readable.from(rows()))
  })
  app.get('/held', { svc: { name: 'held', description: 'NDJSON, not declared stream' } }, async (_request, reply) => {
    return reply.type('application/x-ndjson').send('{"id":1}\n{"id":2}\n')
  })
  app.get('/fails', { svc: { name: 'fails', description: 'Streams, then fails', stream: true } }, async (request, reply) => {
    request.svc.progress(1)
    request.svc.progress(2)
    return await reply.code(409).send({ error: 'conflict' })
  })
}

async function appWith (t: Test, options: Partial<SvcManifestOptions> = {}): Promise<string> {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, mcp: true, ...options })
  routes(app)
  return `${await listening(t, app)}/mcp`
}

/** The clients of each revision: the v2 client (2026-07-28), the v2 client asked for 2025-06-18, the v1 client (2025-11-25). */
async function clientsOf (t: Test, url: string) {
  const modern = await httpClient(t, url)
  const v2Legacy = await httpClient(t, url, {}, ['2025-06-18'])
  const v1 = await legacyHttpClient(t, url)
  const call = (client: typeof modern) => async (name: string) => {
    const seen: Progress[] = []
    const result = await client.callTool({ name, arguments: {} }, { onprogress: (progress) => { seen.push(progress) } })
    const plain = await client.callTool({ name, arguments: {} })
    return { result: result as Record<string, unknown>, seen, plain: plain as Record<string, unknown> }
  }
  return [
    ['2026-07-28', call(modern)],
    ['2025-06-18 (v2 client)', call(v2Legacy)],
    ['2025-11-25 (v1 client)', async (name: string) => {
      const seen: Progress[] = []
      const result = await v1.callTool({ name, arguments: {} }, undefined, { onprogress: (progress) => { seen.push(progress as Progress) } })
      const plain = await v1.callTool({ name, arguments: {} })
      return { result: result as Record<string, unknown>, seen, plain: plain as Record<string, unknown> }
    }]
  ] as const
}

function increasing (values: number[]): boolean {
  return values.every((value, index) => index === 0 || value > values[index - 1])
}

async function checkRevisions (t: Test, url: string, label: string): Promise<void> {
  for (const [revision, call] of await clientsOf(t, url)) {
    const reported = await call('report')
    t.same(textJson(reported.result), { done: true }, `${label}, ${revision}: the result`)
    t.same(reported.result, reported.plain)
    t.same(reported.seen, [
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3 },
      { progress: 3, total: 3, message: 'done' }
    ], `${label}, ${revision}: each report, with its total and message`)

    const burst = await call('burst')
    t.equal(textJson(burst.result), 'burst')
    t.ok(burst.seen.length >= 2 && burst.seen.length <= 5, `${label}, ${revision}: 200 reports in a few ms are throttled (${burst.seen.length} sent)`)
    t.same(burst.seen.at(-1), { progress: 200, total: 200 }, `${label}, ${revision}: the last report is always sent`)
    t.ok(increasing(burst.seen.map(({ progress }) => progress)))

    const exported = await call('export')
    const long = `{"id":2,"text":"${'x'.repeat(2 * MAX_PIECE_MESSAGE)}"}`
    t.same(exported.result, exported.plain, `${label}, ${revision}: the result is the buffered call's`)
    t.same(textJson(exported.result), [{ id: 1 }, JSON.parse(long), 'plain text', { id: 3 }], 'the whole body, as its pieces')
    t.same(exported.seen, [
      { progress: 1, message: '{"id":1}' },
      { progress: 5, total: 10, message: 'halfway' },
      { progress: 6, message: long.slice(0, MAX_PIECE_MESSAGE) },
      { progress: 7, message: '"plain text"' },
      { progress: 8, message: '{"id":3}' }
    ], `${label}, ${revision}: pieces and reports on one counter, pieces cut to ${MAX_PIECE_MESSAGE} characters`)

    const held = await call('held')
    t.same(held.seen, [], `${label}, ${revision}: a command not declared stream sends no pieces`)
    t.same(held.result, held.plain)

    const failed = await call('fails')
    t.equal(failed.result.isError, true, `${label}, ${revision}: a failure is the tool error`)
    t.same(failed.seen, [{ progress: 1 }, { progress: 2 }], `${label}, ${revision}: a report held back is sent before a failure too`)
  }
}

t.test('progress and pieces as notifications/progress, stateless, on every revision', async (t) => {
  await checkRevisions(t, await appWith(t), 'stateless')
})

t.test('progress and pieces in a 2025 session (an app with channels)', async (t) => {
  const url = await appWith(t, { svc: '0.5.0', channels: { cart: { description: 'A cart' } } })
  await checkRevisions(t, url, 'with channels')
})

t.test('a call without a progress token gets no notifications, and its result is unchanged', async (t) => {
  const url = await appWith(t)
  const client = await httpClient(t, url)
  const notified: unknown[] = []
  client.fallbackNotificationHandler = async (notification) => { notified.push(notification) }
  const result = await client.callTool({ name: 'export', arguments: {} })
  const pieces = textJson(result as Record<string, unknown>) as unknown[]
  t.same([pieces.length, pieces[0], pieces[2], pieces[3]], [4, { id: 1 }, 'plain text', { id: 3 }], 'a stream: true command\'s pieces, as an array')
  t.same(notified, [])
})

t.test('ProgressNotifier: held reports, the counter, and nothing after the end', async (t) => {
  const sent: Progress[] = []
  const notifier = new ProgressNotifier((params) => sent.push(params))
  notifier.report({ progress: 0.5, total: 1 })
  notifier.report({ progress: 0.6 })
  notifier.report({ progress: 0.7, message: 'held' })
  t.same(sent, [{ progress: 0.5, total: 1 }], 'the first report at once, the next ones held')
  notifier.piece('{"a":1}')
  notifier.piece('null')
  t.same(sent.slice(1), [{ progress: 1.5, message: '{"a":1}' }, { progress: 2.5, message: 'null' }], 'pieces at once, one above the last')
  await sleep(PROGRESS_INTERVAL_MS + 30)
  t.same(sent.at(-1), { progress: 3.5, message: 'held' }, 'the held report once the interval passed, above the pieces')
  notifier.report({ progress: 10 })
  notifier.end(false)
  notifier.report({ progress: 11 })
  notifier.piece('"late"')
  await sleep(PROGRESS_INTERVAL_MS + 30)
  t.equal(sent.length, 4, 'a cancelled call sends nothing held, nothing after its end')
  const flushed: Progress[] = []
  const other = new ProgressNotifier((params) => flushed.push(params))
  other.report({ progress: 1 })
  other.report({ progress: 2 })
  other.end(true)
  t.same(flushed, [{ progress: 1 }, { progress: 2 }], 'a call that ends sends what it held first')
})
