import t, { type Test } from 'tap'
import { CommandError, createManifestClient, ManifestClientError, type ManifestClient, type Progress } from '../../lib/client/index.js'
import { pause, until } from '../helpers/sse.js'
import { streamServer, type StreamContent, type StreamLog } from '../helpers/stream-routes.js'

// client.execute's signal, timeout and onProgress, and client.stream, against a real listening server with
// real streaming routes (docs/client.md, docs/long-running.md).

const content: StreamContent = {
  lines: ['{"n":1}\n', '{"n":2}\n"three"\n'],
  sse: ['data: {"step":1}\n\nevent: result\ndata: {"total":1}\n\n'],
  binary: [Buffer.from([0xff, 0xfe])]
}

/**
 * Every connection is closed on close: after a fetch is aborted, Node's fetch may keep a spare connection
 * open (see test/client/streams.test.ts).
 */
async function setup (t: Test): Promise<{ client: ManifestClient, log: StreamLog }> {
  const { origin, log } = await streamServer(t, content, {}, { forceCloseConnections: true })
  return { client: createManifestClient({ url: `${origin}/.well-known/svc.json` }), log }
}

async function rejection (promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return await promise.then(() => { throw new Error('expected a rejection') }, (error: Error & Record<string, unknown>) => error)
}

t.test('stream(): each piece as the route writes it, then the final result as the return value', async (t) => {
  const { client, log } = await setup(t)
  const lines = client.stream('lines')
  // The first piece is read before the route writes the second.
  t.same(await lines.next(), { done: false, value: { n: 1 } })
  log.more!()
  t.same(await lines.next(), { done: false, value: { n: 2 } })
  t.same(await lines.next(), { done: false, value: 'three' })
  t.same(await lines.next(), { done: true, value: null }, 'NDJSON has no final result')

  const pieces: unknown[] = []
  const sse = client.stream('sse')
  let step = await sse.next()
  for (; step.done !== true; step = await sse.next()) pieces.push(step.value)
  t.same(pieces, [{ step: 1 }])
  t.same(step.value, { total: 1 }, 'the SSE event named result is the return value')
})

t.test('stream(): bytes that are not UTF-8 are a Buffer; a binary result a Blob; progress goes to onProgress', async (t) => {
  const { client } = await setup(t)
  const binary: unknown[] = []
  for await (const piece of client.stream('binary')) binary.push(piece)
  t.ok(Buffer.isBuffer(binary[0]))
  t.same([...(binary[0] as Buffer)], [0xff, 0xfe])

  const logo = client.stream('logo')
  const end = await logo.next()
  t.equal(end.done, true)
  t.type(end.value, Blob)
  t.equal((end.value as Blob).type, 'image/png')

  const reports: Progress[] = []
  const job = client.stream('job', {}, { onProgress: (progress) => reports.push(progress) })
  t.same(await job.next(), { done: true, value: { done: true } })
  t.same(reports, [{ progress: 1, total: 3 }, { progress: 2, total: 3, message: 'halfway' }, { progress: 3, total: 3 }])
  // Without onProgress, progress frames are passed over.
  t.same(await client.stream('job').next(), { done: true, value: { done: true } })
})

t.test('stream(): leaving the loop early aborts the request, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const seen: unknown[] = []
  for await (const piece of client.stream('endless')) {
    seen.push(piece)
    if (seen.length === 3) break
  }
  t.same(seen, [{ tick: 1 }, { tick: 2 }, { tick: 3 }])
  await until(() => log.aborted.endless !== undefined, 'the route\'s signal')
  t.match(log.aborted.endless, { message: /went away/ })
  await until(() => log.closed.includes('endless'), 'the route\'s request to close')
  const written = log.written
  await pause(100)
  t.ok(log.written <= written + 1, 'the route stopped writing')
})

t.test('stream(): the caller\'s signal aborts it mid-way, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const controller = new AbortController()
  const endless = client.stream('endless', {}, { signal: controller.signal })
  t.same(await endless.next(), { done: false, value: { tick: 1 } })
  controller.abort(new Error('enough'))
  const error = await rejection((async () => { for await (const piece of endless) t.ok(piece) })())
  t.type(error, ManifestClientError)
  t.match(error, { code: 'SVC_CLIENT_ABORTED', cause: { message: 'enough' } })
  await until(() => log.aborted.endless !== undefined, 'the route\'s signal')

  const already = await rejection(client.stream('lines', {}, { signal: controller.signal }).next())
  t.match(already, { code: 'SVC_CLIENT_ABORTED' }, 'a signal aborted already sends nothing')
})

t.test('stream(): a refusal before the stream rejects with its code; an error frame throws with its code', async (t) => {
  const { client } = await setup(t)
  const refused = await rejection(client.stream('locked').next())
  t.type(refused, CommandError)
  t.match(refused, { code: 'UNAUTHORIZED', status: 401, message: 'no' })
  t.match(await rejection(client.stream('nope').next()), { code: 'UNKNOWN_COMMAND', status: 404 })

  const broken = client.stream('breaks')
  t.same(await broken.next(), { done: false, value: { n: 1 } })
  const failed = await rejection(broken.next())
  t.type(failed, CommandError)
  t.match(failed, { code: 'INTERNAL_ERROR', status: 502 })
  t.same(await broken.next(), { done: true, value: undefined }, 'a failed stream is over')

  t.match(await rejection(client.stream('lateFail').next()), { name: 'CommandError', code: 'CONFLICT', status: 409, message: 'no stock' })
})

t.test('execute() with onProgress: a streamed execute, progress reports, then the result', async (t) => {
  const { client } = await setup(t)
  const reports: Progress[] = []
  t.same(await client.execute('job', {}, { onProgress: (progress) => reports.push(progress) }), { done: true })
  t.same(reports, [{ progress: 1, total: 3 }, { progress: 2, total: 3, message: 'halfway' }, { progress: 3, total: 3 }])

  const refused = await rejection(client.execute('locked', {}, { onProgress: () => {} }))
  t.type(refused, CommandError)
  t.match(refused, { code: 'UNAUTHORIZED', status: 401 })
  const late: Progress[] = []
  t.match(await rejection(client.execute('lateFail', {}, { onProgress: (progress) => late.push(progress) })), { name: 'CommandError', code: 'CONFLICT', status: 409 })
  t.same(late, [{ progress: 1 }])

  // A streaming command's pieces are not kept: its result is done's, as stream() returns it.
  t.same(await client.execute('sse', {}, { onProgress: () => {} }), { total: 1 })
  const logo = await client.execute<Blob>('logo', {}, { onProgress: () => {} })
  t.equal(logo.type, 'image/png')
})

t.test('execute(): its signal aborts the request, and the route is cancelled', async (t) => {
  const { client, log } = await setup(t)
  const controller = new AbortController()
  const call = client.execute('wait', {}, { signal: controller.signal })
  await until(() => log.started.includes('wait'), 'the route to start')
  controller.abort()
  t.match(await rejection(call), { code: 'SVC_CLIENT_ABORTED' })
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  t.match(log.aborted.wait, { message: /went away/ })
})

t.test('execute(): a timeout of its own rejects with SVC_CLIENT_TIMEOUT and cancels the route', async (t) => {
  const { client, log } = await setup(t)
  const began = Date.now()
  const error = await rejection(client.execute('wait', {}, { timeout: 300 }))
  t.type(error, ManifestClientError)
  t.match(error, { code: 'SVC_CLIENT_TIMEOUT', message: /did not complete within 300 ms \(timeout\)/ })
  t.ok(Date.now() - began < 3000, 'in its time, not the client\'s 10 s')
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  delete log.aborted.wait

  // Streamed: the time limit holds while the stream is read, not only until it opens.
  const reports: Progress[] = []
  const streamed = await rejection(client.execute('wait', {}, { timeout: 300, onProgress: (progress) => reports.push(progress) }))
  t.match(streamed, { code: 'SVC_CLIENT_TIMEOUT' })
  t.same(reports, [{ progress: 1, message: 'started' }])
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')

  for (const timeout of [0, -1, 2 ** 31, Number.NaN, '5' as unknown as number]) {
    t.match(await rejection(client.execute('job', {}, { timeout })), { code: 'SVC_CLIENT_INVALID_OPTION', message: /^timeout must be/ }, String(timeout))
  }
})
