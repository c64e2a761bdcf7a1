// The exchange under every request of the client and the CLI (lib/client/http.ts), as the commands that
// invoke, pipeline and subscribe use it: methods and bodies across redirects, streamed bodies, cleanup.
import type { IncomingMessage } from 'node:http'
import t, { type Test } from 'tap'
import { DEFAULT_MAX_BODY_SIZE, DEFAULT_TIMEOUT_MS, exchange, formatDuration, readLimits } from '../../lib/client/http.js'
import { rawServer } from '../helpers/raw-server.js'

interface Seen {
  method: string
  url: string
  body: string
  contentType?: string
  requestId?: string
}

async function bodyOf (request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}

/** A server that redirects `/from/<status>` to `/to` and echoes what `/to` received. */
async function redirecting (t: Test) {
  const seen: Seen[] = []
  const server = await rawServer(t, async (request, response) => {
    const { 'content-type': contentType, 'x-request-id': requestId } = request.headers as Record<string, string>
    seen.push({ method: request.method!, url: request.url!, body: await bodyOf(request), contentType, requestId })
    const status = /^\/from\/(\d+)$/.exec(request.url!)?.[1]
    if (status !== undefined) response.writeHead(Number(status), { location: '/to' }).end()
    else response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.method} ${request.url}`)
  })
  return { ...server, seen }
}

const post = { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'r1' }, body: '{"a":1}' }

t.test('redirects keep or drop the method and body as fetch does', async (t) => {
  const { origin, seen } = await redirecting(t)
  const cases: [number, string, string, string][] = [
    [303, 'POST', 'GET', ''],
    [302, 'POST', 'GET', ''],
    [301, 'POST', 'GET', ''],
    [307, 'POST', 'POST', '{"a":1}'],
    [308, 'POST', 'POST', '{"a":1}']
  ]
  for (const [status, method, then, body] of cases) {
    seen.length = 0
    const text = await exchange(`${origin}/from/${status}`, { ...post, method }, async (response) => {
      t.equal(response.url, `${origin}/to`, 'the URL that answered')
      return await response.text()
    })
    t.equal(text, `${then} /to`, `${status} after ${method}`)
    const contentType = then === 'GET' ? undefined : 'application/json'
    t.same(seen[1], { method: then, url: '/to', body, contentType, requestId: 'r1' }, 'other headers are kept')
  }
  seen.length = 0
  const head = await exchange(`${origin}/from/303`, { method: 'HEAD' }, async (response) => await response.bytes())
  t.equal(head.length, 0, 'a HEAD has no body')
  t.equal(seen[1].method, 'HEAD', 'a 303 keeps a HEAD a HEAD')
  seen.length = 0
  await exchange(`${origin}/from/302`, {}, async (response) => await response.text())
  t.same(seen.map((request) => request.method), ['GET', 'GET'])
})

t.test('stream(): the body as it arrives, past the time limit; cancelled when the handler returns', async (t) => {
  // Each response's close, resolved with whether the server had ended it: false when the client hung up first.
  const closed: Array<Promise<boolean>> = []
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    let count = 0
    const timer = setInterval(() => response.write(`data: ${++count}\n\n`), 100)
    closed.push(new Promise((resolve) => response.on('close', () => { clearInterval(timer); resolve(response.writableEnded) })))
  })
  const events = await exchange(`${origin}/events`, { timeout: 150 }, async (response) => {
    const received: string[] = []
    const decoder = new TextDecoder()
    for await (const chunk of response.stream() as unknown as AsyncIterable<Uint8Array>) {
      received.push(...decoder.decode(chunk).split('\n\n').filter(Boolean))
      if (received.length >= 4) break
    }
    return received
  })
  t.same(events, ['data: 1', 'data: 2', 'data: 3', 'data: 4'], 'read for 400 ms with a 150 ms timeout')
  t.equal(closed.length, 1, 'one request')
  t.equal(await closed[0], false, 'the server saw the connection close before its endless response ended')
})

t.test('a handler that stops before reading: the body is dropped and the connection released', async (t) => {
  const closed: Array<Promise<boolean>> = []
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200)
    response.write('x'.repeat(1024))
    closed.push(new Promise((resolve) => response.on('close', () => resolve(response.writableEnded))))
  })
  const error = await exchange(`${origin}/`, {}, async () => { throw new Error('not what I wanted') }).catch((error) => error)
  t.equal(error.message, 'not what I wanted', "the handler's own error passes through")
  t.equal(closed.length, 1, 'one request')
  t.equal(await closed[0], false, 'the unread body was cancelled: the connection closed before the server ended its response')

  const { origin: empty } = await rawServer(t, (request, response) => response.writeHead(204).end())
  t.equal(await exchange(`${empty}/`, {}, async (response) => response.stream() !== undefined), true, 'no body: an empty stream')
})

t.test('limits: defaults, and what readLimits refuses', async (t) => {
  t.equal(DEFAULT_TIMEOUT_MS, 10_000)
  t.equal(DEFAULT_MAX_BODY_SIZE, 8 * 1024 * 1024)
  t.same(readLimits({}), { timeout: 10_000, maxBodySize: 8 * 1024 * 1024 })
  t.same(readLimits({ timeout: 1, maxBodySize: 1 }), { timeout: 1, maxBodySize: 1 })
  t.throws(() => readLimits({ timeout: 0 }), { code: 'SVC_CLIENT_INVALID_OPTION' })
  t.same([formatDuration(10_000), formatDuration(1500), formatDuration(250), formatDuration(1234)], ['10 s', '1.5 s', '250 ms', '1234 ms'])
})
