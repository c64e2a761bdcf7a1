import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { readyApp } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// How a streamed execute writes its frames: a route that writes much in one turn has its frames sent as
// they fill a write, not held to the end of the turn; a progress report after the call ended goes nowhere.

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
