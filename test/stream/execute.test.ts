import { request as httpRequest } from 'node:http'
import t, { type Test } from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'
import { diffManifests, type Manifest } from '../../lib/client/index.js'
import { pause, SseSubscriber, until } from '../helpers/sse.js'
import { streamServer, type StreamContent, type StreamServer } from '../helpers/stream-routes.js'

// Streamed execute (docs/long-running.md): `"stream": true` (or an Accept of text/event-stream alone)
// answers an event stream of the route's pieces as they are written, its progress, then `done` or `error`.

/** POSTs execute on its own connection and resolves once the response head arrived. */
function streamExecute (origin: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<SseSubscriber> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL('/svc/execute', origin), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, agent: false })
    request.on('response', (response) => resolve(new SseSubscriber(request, response, true)))
    request.on('error', reject)
    request.end(JSON.stringify(body))
  })
}

/** Lines split mid-line, with CRLF, a line that is not JSON and an empty line; SSE in two writes. */
const content: StreamContent = {
  lines: ['{"n":1}\n{"n":', '2}\r\nnot json\n\n{"n":3}'],
  sse: ['data: {"step":1}\n\n', 'data: plain text\n\nevent: result\ndata: {"total":2}\n\n'],
  binary: [Buffer.from('ok'), Buffer.from([0xff, 0xfe])]
}

async function setup (t: Test, options = {}): Promise<StreamServer> {
  return await streamServer(t, content, options)
}

t.test('NDJSON pieces arrive as the route writes them, then done', async (t) => {
  const { origin, log } = await setup(t)
  const stream = await streamExecute(origin, { command: 'lines', stream: true })
  t.equal(stream.status, 200)
  t.match(stream.headers, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  // The first piece is read before the route writes the second.
  t.same(await stream.frameCount(1), [{ id: undefined, event: undefined, data: { type: 'chunk', data: { n: 1 } } }])
  log.more!()
  await stream.end()
  t.same(stream.frames.map((frame) => frame.data), [
    { type: 'chunk', data: { n: 1 } },
    { type: 'chunk', data: { n: 2 } },
    { type: 'chunk', data: 'not json' },
    { type: 'chunk', data: { n: 3 } },
    { type: 'done', result: null }
  ])
})

t.test('SSE pieces: each event\'s data; the event named result is the final result', async (t) => {
  const { origin, log } = await setup(t)
  const stream = await streamExecute(origin, { command: 'sse' }, { accept: 'text/event-stream' })
  t.same((await stream.frameCount(1))[0].data, { type: 'chunk', data: { step: 1 } })
  log.moreSse!()
  await stream.end()
  t.same(stream.frames.map((frame) => frame.data), [
    { type: 'chunk', data: { step: 1 } },
    { type: 'chunk', data: 'plain text' },
    { type: 'done', result: { total: 2 } }
  ])
})

t.test('a command not declared stream: progress frames, then done with the buffered result', async (t) => {
  const { origin } = await setup(t)
  const stream = await streamExecute(origin, { command: 'job', stream: true })
  await stream.end()
  t.same(stream.frames.map((frame) => frame.data), [
    { type: 'progress', progress: 1, total: 3 },
    { type: 'progress', progress: 2, total: 3, message: 'halfway' },
    { type: 'progress', progress: 3, total: 3 },
    { type: 'done', result: { done: true } }
  ])
})

t.test('other bodies: text chunks, base64 when not UTF-8, JSON as the result', async (t) => {
  const { origin } = await setup(t)
  const binary = await streamExecute(origin, { command: 'binary', stream: true })
  await binary.end()
  t.same(binary.frames.map((frame) => frame.data), [
    { type: 'chunk', data: 'ok' },
    { type: 'chunk', data: Buffer.from([0xff, 0xfe]).toString('base64'), encoding: 'base64' },
    { type: 'done', result: null }
  ])
  const json = await streamExecute(origin, { command: 'json', stream: true })
  await json.end()
  t.same(json.frames.map((frame) => frame.data), [{ type: 'done', result: { whole: true } }])
  t.equal(json.headers['retry-after'], '5', 'the route\'s relayed headers come with the stream\'s head')
  const bare = await streamExecute(origin, { command: 'bare', stream: true })
  await bare.end()
  t.same(bare.frames.map((frame) => frame.data), [{ type: 'chunk', data: 'as is' }, { type: 'done', result: null }])
  const bytes = await streamExecute(origin, { command: 'bytes', stream: true })
  await bytes.end()
  t.same(bytes.frames.map((frame) => frame.data), [{ type: 'done', result: 'AQI=', encoding: 'base64', contentType: 'application/octet-stream' }])
})

t.test('a failure before the first frame is the JSON envelope; after, an error frame', async (t) => {
  const { origin } = await setup(t)
  const refused = await streamExecute(origin, { command: 'locked', stream: true })
  await refused.end()
  t.equal(refused.status, 401)
  t.match(refused.json(), { ok: false, error: { code: 'UNAUTHORIZED', message: 'no' } })
  const unknown = await streamExecute(origin, { command: 'nope', stream: true })
  await unknown.end()
  t.equal(unknown.status, 404)

  const broken = await streamExecute(origin, { command: 'breaks', stream: true })
  await broken.end()
  t.match(broken.frames.map((frame) => frame.data), [
    { type: 'chunk', data: { n: 1 } },
    { type: 'error', error: { code: 'INTERNAL_ERROR', status: 502 } }
  ])
  const late = await streamExecute(origin, { command: 'lateFail', stream: true })
  await late.end()
  t.match(late.frames.map((frame) => frame.data), [
    { type: 'progress', progress: 1 },
    { type: 'error', error: { code: 'CONFLICT', status: 409, message: 'no stock' } }
  ])
})

t.test('asking: stream true or false in the envelope, else Accept', async (t) => {
  const { app } = await setup(t)
  const bad = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'json', stream: 'yes' } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().error, { code: 'INVALID_REQUEST', message: '"stream" must be true or false when present.' })
  const both = await execute(app, 'json', {}, { accept: 'text/event-stream, application/json' })
  t.same(both.json(), { ok: true, result: { whole: true } }, 'JSON when the caller accepts both')
  const sse = await execute(app, 'json', {}, { accept: 'text/event-stream;q=1' })
  t.equal(sse.headers['content-type'], 'text/event-stream')
  t.equal(sse.body, 'data: {"type":"done","result":{"whole":true}}\n\n')
  const no = await app.inject({ method: 'POST', url: '/svc/execute', headers: { accept: 'text/event-stream' }, payload: { command: 'json', stream: false } })
  t.same(no.json(), { ok: true, result: { whole: true } }, 'the envelope wins over Accept')
  const buffered = await execute(app, 'json')
  t.same(buffered.json(), { ok: true, result: { whole: true } })
})

t.test('the caller going away stops an endless stream: its signal aborts and its request closes', async (t) => {
  const { origin, log } = await setup(t)
  const stream = await streamExecute(origin, { command: 'flood', stream: true })
  await stream.frameCount(3)
  stream.close()
  await until(() => 'flood' in log.aborted && log.closed.includes('flood'), 'the route to stop')
  t.match(log.aborted.flood, { name: 'AbortError', message: /caller went away/ })
  const written = log.written
  await pause(100)
  t.ok(log.written <= written + 1, 'the route stopped writing')
})

t.test('a deadline ends a streamed call with an error frame, 504', async (t) => {
  const { origin, log } = await setup(t)
  const stream = await streamExecute(origin, { command: 'slowEndless', stream: true })
  await stream.end()
  t.match(stream.frames.map((frame) => frame.data), [
    { type: 'chunk', data: 'tick' },
    { type: 'error', error: { code: 'TIMEOUT', status: 504, message: /300 ms \(svc.timeout\)/ } }
  ])
  t.match(log.aborted, { slowEndless: { code: 'TIMEOUT' } })
})

t.test('a caller that reads too slowly: the route is cancelled and the stream ends with a 413 error frame', async (t) => {
  const { origin, log } = await setup(t, { invoke: { maxResultBytes: 64 * 1024 } })
  const stream = await streamExecute(origin, { command: 'flood', stream: true })
  stream.response.pause()
  await until(() => 'flood' in log.aborted, 'the route to be cancelled')
  t.match(log.aborted.flood, { code: 'PAYLOAD_TOO_LARGE', status: 413, message: /more than 65536 bytes/ })
  stream.response.resume()
  await stream.end()
  const last = stream.frames.at(-1)!.data
  t.match(last, { type: 'error', error: { code: 'PAYLOAD_TOO_LARGE', status: 413 } })
  t.ok(stream.frames.length > 10, 'the frames before it were sent')
})

t.test('a piece that never ends is held only up to the byte budget: the route is cancelled, 413', async (t) => {
  for (const [command, first] of [['longLine', { n: 1 }], ['longEvent', { step: 1 }]] as const) {
    const { origin, log } = await setup(t, { invoke: { maxResultBytes: 64 * 1024 } })
    const stream = await streamExecute(origin, { command, stream: true })
    await stream.end()
    t.same(stream.frames.map(({ data }) => (data as { type: string }).type), ['chunk', 'error'], command)
    t.same((stream.frames[0].data as { data: unknown }).data, first, 'the pieces before it were sent')
    t.match(stream.frames[1].data, { type: 'error', error: { code: 'PAYLOAD_TOO_LARGE', status: 413, message: /A piece of the route's stream passed 65536 bytes/ } })
    t.match(log.aborted, { [command]: { code: 'PAYLOAD_TOO_LARGE' } }, 'the route was cancelled')
  }
})

t.test('svc.stream and svc.timeout: read, checked, and stream: true served after hints', async (t) => {
  const { app } = await setup(t)
  const manifest = await fetchManifest(app)
  t.same(Object.keys(manifest.commands.lines), ['description', 'stream'])
  t.equal(manifest.commands.lines.stream, true)
  t.notOk('stream' in manifest.commands.job)
  const ordered = await readyApp(t, {}, (app) => {
    app.get('/h', { svc: { name: 'h', description: 'H', stream: true, hints: { idempotent: true }, timeout: 5, tags: ['t'] } }, async () => ({}))
    app.get('/n', { svc: { name: 'n', description: 'N', stream: false, timeout: 0 } }, async () => ({}))
  }).then(fetchManifest)
  t.same(Object.keys(ordered.commands.h), ['description', 'tags', 'hints', 'stream'])
  t.notOk('stream' in ordered.commands.n, 'stream: false is left out')
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ stream: 'yes' }, /svc\.stream must be a boolean/],
    [{ timeout: -1 }, /svc\.timeout must be a whole number of milliseconds, 0 \(no deadline\) to 2147483647/],
    [{ timeout: 1.5 }, /svc\.timeout/],
    [{ timeout: 2 ** 31 }, /svc\.timeout/]
  ]
  for (const [svc, message] of cases) {
    await t.rejects(readyApp(t, {}, (app) => { app.get('/x', { svc: { description: 'X', ...svc } as never }, async () => ({})) }), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message })
  }
})

t.test('diffManifests: a command that starts or stops streaming is a non-breaking stream.changed', async (t) => {
  const { app } = await setup(t)
  const before = await fetchManifest(app)
  const after = structuredClone(before) as Manifest
  delete after.commands.lines.stream
  after.commands.job.stream = true
  const diff = diffManifests(before, after)
  t.same(diff.breaking, [])
  t.same(diff.nonBreaking.map(({ kind, name, message }) => `${kind} ${name}: ${message}`), [
    'stream.changed job: command job now streams its result',
    'stream.changed lines: command lines no longer streams its result'
  ])
})

t.test('pipeline steps and a plain execute are buffered, streaming commands included', async (t) => {
  const { app } = await setup(t)
  const response = await pipeline(app, { steps: [{ command: 'binary' }, { command: 'json' }, { command: 'job' }] })
  t.same(response.json(), {
    ok: true,
    results: [
      { command: 'binary', ok: true, result: Buffer.from([0x6f, 0x6b, 0xff, 0xfe]).toString('base64'), encoding: 'base64', contentType: 'application/octet-stream' },
      { command: 'json', ok: true, result: { whole: true } },
      { command: 'job', ok: true, result: { done: true } }
    ]
  })
  const bare = await execute(app, 'bare')
  t.same(bare.json(), { ok: true, result: Buffer.from('as is').toString('base64'), encoding: 'base64', contentType: 'application/octet-stream' })
})

t.test('buffered, a stream: true command\'s events or lines are the array of its pieces; an SSE result event is the result', async (t) => {
  const { app, log } = await setup(t)
  const lines = execute(app, 'lines')
  await until(() => log.more !== undefined, 'the route to start')
  log.more!()
  t.same((await lines).json(), { ok: true, result: [{ n: 1 }, { n: 2 }, 'not json', { n: 3 }] }, 'NDJSON: each line, parsed when it parses')
  const sse = execute(app, 'sse')
  await until(() => log.moreSse !== undefined, 'the route to start')
  log.moreSse!()
  t.same((await sse).json(), { ok: true, result: { total: 2 } }, 'the event named result')
  const steps = pipeline(app, { steps: [{ command: 'lines' }] })
  log.more = undefined
  await until(() => log.more !== undefined, 'the route to start again')
  log.more!()
  t.same((await steps).json(), { ok: true, results: [{ command: 'lines', ok: true, result: [{ n: 1 }, { n: 2 }, 'not json', { n: 3 }] }] }, 'a pipeline step alike')
})
