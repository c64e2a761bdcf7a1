import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import t from 'tap'
import { readyApp } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { execute } from '../helpers/invoke.js'

// How a streamed execute writes its frames: a route that writes much in one turn has its frames sent as
// they fill a write, not held to the end of the turn; a progress report after the call ended goes nowhere.
// How NDJSON is cut into lines whatever the route's writes: strings and buffers, characters cut between them.

/** The `data:` frames of an event-stream body, parsed. */
function frames (body: string): Array<Record<string, unknown>> {
  return body.split('\n\n').filter((frame) => frame.startsWith('data: ')).map((frame) => JSON.parse(frame.slice(6)))
}

t.test('one chunk of 4,000 lines: every piece, in order, then done', async (t) => {
  const lines = Array.from({ length: 4000 }, (_, index) => JSON.stringify({ index, text: 'x'.repeat(40) })).join('\n')
  const app = await readyApp(t, {}, (app) => {
    app.get('/export', { svc: { description: 'Every row at once', stream: true } }, async (request, reply) => {
      return reply.type('application/x-ndjson').send(Readable.from([lines]))
    })
  })
  const response = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'export', stream: true } })
  const sent = frames(response.body)
  t.equal(sent.length, 4001)
  t.same(sent.slice(0, -1).map((frame) => (frame.data as { index: number }).index), Array.from({ length: 4000 }, (_, index) => index), 'the pieces in order')
  t.same(sent.at(-1), { type: 'done', result: null })
})

t.test('a progress report after the call ended is dropped, without an error', async (t) => {
  const errors: unknown[] = []
  const reported: number[] = []
  const app = await readyApp(t, {}, (app) => {
    app.addHook('onError', async (_request, _reply, error) => { errors.push(error) })
    app.get('/late', { svc: { description: 'Reports once it is done', stream: true } }, async (request, reply) => {
      setTimeout(() => {
        request.svc.progress(1, { total: 1 })
        reported.push(Date.now())
      }, 30)
      return reply.type('application/x-ndjson').send(Readable.from(['{"row":1}\n']))
    })
  })
  const origin = await listening(t, app)
  const response = await fetch(`${origin}/svc/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ command: 'late', stream: true }) })
  t.same(frames(await response.text()), [{ type: 'chunk', data: { row: 1 } }, { type: 'done', result: null }])
  while (reported.length === 0) await sleep(10)
  await sleep(20)
  t.same(errors, [], 'nothing written after the end')
})

t.test('a JSON piece over more than one line is framed by its value: an SSE event of two data lines, a line with CR inside', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/events', { svc: { description: 'Multi-line data', stream: true } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
      reply.raw.end('data: {"a":\ndata: 1}\n\n')
    })
    app.get('/spaced', { svc: { description: 'CR as JSON space', stream: true } }, async (request, reply) => {
      return reply.type('application/x-ndjson').send('{"b":\r2}\n')
    })
  })
  for (const [command, data] of [['events', { a: 1 }], ['spaced', { b: 2 }]] as const) {
    const streamed = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command, stream: true } })
    t.same(frames(streamed.body), [{ type: 'chunk', data }, { type: 'done', result: null }], command)
    t.same((await execute(app, command)).json(), { ok: true, result: [data] }, `${command}, buffered: the same value`)
  }
})

t.test('NDJSON written as strings and buffers, characters cut between writes: the same lines, whole', async (t) => {
  const bytes = (text: string): Buffer => Buffer.from(text)
  const cafe = bytes('{"w":"café"}\n')
  const euro = bytes('{"e":"€"}\r\n   \n{"s":')
  const smile = bytes('}\n🙂 not json')
  // Cut inside é (2 bytes), € (3) and 🙂 (4); a line held over buffers and strings; a blank line; no last newline.
  const writes = [
    cafe.subarray(0, 10), Buffer.concat([cafe.subarray(10), euro.subarray(0, 8)]), euro.subarray(8),
    '"strïng"}\n{"u":2}\n{"t":', '1', smile.subarray(0, 4), smile.subarray(4)
  ]
  const app = await readyApp(t, {}, (app) => {
    app.get('/mixed', { svc: { description: 'Lines in odd writes', stream: true } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
      for (const chunk of writes) reply.raw.write(chunk)
      reply.raw.end()
    })
  })
  const pieces = [{ w: 'café' }, { e: '€' }, { s: 'strïng' }, { u: 2 }, { t: 1 }, '🙂 not json']
  const streamed = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'mixed', stream: true } })
  t.same(frames(streamed.body), [...pieces.map((data) => ({ type: 'chunk', data })), { type: 'done', result: null }], 'streamed: one chunk frame a line')
  t.same((await execute(app, 'mixed')).json(), { ok: true, result: pieces }, 'buffered: the array of the lines')
})

t.test('a piece not yet ended is held to the byte budget in bytes, an SSE event as an NDJSON line', async (t) => {
  // 40,000 characters of 2 bytes each: 80,000 bytes, past a budget of 65,536, in fewer characters than it.
  const wide = 'é'.repeat(40_000)
  /** Writes the start of a piece, and its end only on a later turn: held in between. */
  const twoWrites = (type: string, start: string, end: string) => (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack()
    reply.raw.writeHead(200, { 'content-type': type })
    reply.raw.write(start)
    setImmediate(() => { if (!reply.raw.destroyed) reply.raw.end(end) })
  }
  const app = await readyApp(t, { invoke: { maxResultBytes: 64 * 1024 } }, (app) => {
    app.get('/wide-event', { svc: { name: 'wideEvent', description: 'A wide SSE event', stream: true } }, twoWrites('text/event-stream', `data: "${wide}`, '"\n\n'))
    app.get('/wide-line', { svc: { name: 'wideLine', description: 'A wide NDJSON line', stream: true } }, twoWrites('application/x-ndjson', `"${wide}`, '"\n'))
  })
  for (const command of ['wideEvent', 'wideLine']) {
    const streamed = await app.inject({ method: 'POST', url: '/svc/execute', payload: { command, stream: true } })
    // Refused before any frame: the ordinary envelope.
    t.equal(streamed.statusCode, 413, command)
    t.match(streamed.json(), { ok: false, error: { code: 'PAYLOAD_TOO_LARGE', message: /A piece of the route's stream passed 65536 bytes/ } }, command)
  }
})
