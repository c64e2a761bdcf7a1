// Defect: the client (and `svc-manifest events` / `watch`) buffered an SSE frame that never ends without
// limit: a server sending `data: xxxxx…` with no line ending grew the CLI to 384 MB and rising. Now a frame,
// or a line of one, of more than the client's `maxBodySize` bytes ends the stream with
// SVC_CLIENT_TOO_LARGE, at once and without reopening it; the frames before it are delivered.
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { createManifestClient, type Manifest, type ManifestClientError, type SvcEvent } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli, oneLine, spawned } from '../helpers/cli.js'

const KiB = 1024
const MiB = 1024 * KiB
/** Reconnections a client would make at once: any loop shows within the test. */
const fast = { reconnect: { initialDelay: 5, maxDelay: 5 } }

interface Hostile {
  url: string
  /** Requests to the events endpoint so far. */
  connections: () => number
  /** Resolves to the bytes the events endpoint wrote, once its connection closed. */
  written: () => Promise<number>
}

/**
 * A service whose manifest is ordinary and whose events endpoint answers the first connection with
 * `stream`, and any later one with a 401, which ends a subscription that reconnected.
 */
async function hostile (t: Test, stream: (response: ServerResponse) => Promise<number>): Promise<Hostile> {
  const sent: Array<Promise<number>> = []
  const { origin, requests } = await rawServer(t, (request, response) => {
    // Layout 0.5.0 with a cart channel: the client checks the manifest declares a channel before it watches.
    if (request.url === '/svc.json') return sendJson(response, manifestOf(undefined, { svc: '0.5.0', channels: { cart: { description: 'Cart' } } } as Partial<Manifest>))
    if (sent.length > 0) return response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"reconnected"}')
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
    sent.push(stream(response))
  })
  return {
    url: `${origin}/svc.json`,
    connections: () => requests.filter((path) => path !== '/svc.json').length,
    written: async () => await sent[0]
  }
}

/**
 * Writes `head`, then `unit` again and again at the pace the client reads, until the client hangs up or
 * `cap` bytes went out; resolves to the bytes written.
 */
async function flood (response: ServerResponse, head: string, unit: string | Buffer, cap = 64 * MiB): Promise<number> {
  let written = Buffer.byteLength(head)
  response.write(head)
  while (written < cap && !response.destroyed) {
    written += Buffer.byteLength(unit)
    if (!response.write(unit)) await Promise.race([once(response, 'drain'), once(response, 'close')])
  }
  if (!response.destroyed) response.end()
  return written
}

/** Writes `text` in pieces of `size` bytes, one per turn of the event loop, then ends. */
async function trickle (response: ServerResponse, text: string, size: number): Promise<number> {
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length && !response.destroyed; at += size) {
    response.write(bytes.subarray(at, at + size))
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (!response.destroyed) response.end()
  return bytes.length
}

/** Subscribes and collects events until the subscription ends; rejects if it is still running after `ms`. */
async function subscribed (url: string, options: { maxBodySize?: number } = {}, ms = 10_000): Promise<{ events: SvcEvent[], error: ManifestClientError | undefined }> {
  const events: SvcEvent[] = []
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), ms)
  const error = await createManifestClient({ url, ...options }).subscribe({ signal: controller.signal, ...fast }, (event) => { events.push(event) })
    .then(() => undefined, (error: ManifestClientError) => error)
  clearTimeout(timer)
  if (controller.signal.aborted) throw new Error(`the subscription was still running after ${ms} ms, with ${events.length} events`)
  return { events, error }
}

function frame (id: number, data: unknown, eol = '\n'): string {
  return `id: ${id}${eol}event: news${eol}data: ${JSON.stringify(data)}${eol}${eol}`
}

t.test('a line that never ends: SVC_CLIENT_TOO_LARGE after maxBodySize (default 8 MiB), the frame before delivered, no reconnection', async (t) => {
  const service = await hostile(t, (response) => flood(response, `${frame(1, { n: 1 })}data: `, 'x'.repeat(64 * KiB)))
  const { events, error } = await subscribed(service.url)
  t.same(events.map((event) => event.data), [{ n: 1 }], 'the frame before it was delivered')
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE')
  t.match(error?.message, new RegExp(`^GET ${service.url.replace('/svc.json', '/svc/events')} sent an event-stream frame of more than 8388608 bytes \\(maxBodySize\\); closed and not reopened`))
  const written = await service.written()
  t.ok(written < 24 * MiB, `the client hung up after ${(written / MiB).toFixed(1)} MiB of the 64 the server would send`)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(service.connections(), 1, 'the stream was not reopened')
})

t.test('many short lines that make one frame without end: refused at maxBodySize', async (t) => {
  const service = await hostile(t, (response) => flood(response, 'event: news\n', `data: ${'y'.repeat(1000)}\n`))
  const { events, error } = await subscribed(service.url, { maxBodySize: 64 * KiB })
  t.same(events, [])
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE')
  t.match(error?.message, 'sent an event-stream frame of more than 65536 bytes (maxBodySize)')
  t.ok(await service.written() < 32 * MiB, 'the client hung up long before the server stopped')
  t.equal(service.connections(), 1)
})

t.test('CRLF line endings do not end a frame: a frame of CRLF lines without a blank one is refused', async (t) => {
  const service = await hostile(t, (response) => flood(response, 'event: news\r\n', 'data: 1\r\n'))
  const { error } = await subscribed(service.url, { maxBodySize: 64 * KiB })
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE')
})

t.test('CR-only line endings: frames end at a blank line as the parser reads them; one without end is refused', async (t) => {
  const data = 'z'.repeat(3000)
  const frames = Array.from({ length: 40 }, (_, n) => frame(n + 1, data, '\r')).join('')
  const passing = await hostile(t, (response) => trickle(response, `${frames}data: ${'x'.repeat(100 * KiB)}`, 8 * KiB))
  const { events, error } = await subscribed(passing.url, { maxBodySize: 4 * KiB })
  t.equal(events.length, 40, '40 frames of 3 KiB each, 120 KiB in all, pass a limit of 4 KiB')
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE', 'then a line without end is refused')
  t.equal(passing.connections(), 1)
})

t.test('one long line in many small writes is counted across them', async (t) => {
  const service = await hostile(t, (response) => trickle(response, `data: "${'x'.repeat(40 * KiB)}"\n\n`, 100))
  const { error } = await subscribed(service.url, { maxBodySize: 16 * KiB })
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE')
})

t.test('a frame of exactly maxBodySize bytes is delivered, one byte more is refused; with each line ending', async (t) => {
  for (const eol of ['\n', '\r\n', '\r']) {
    const name = JSON.stringify(eol)
    const data = { text: 'é'.repeat(1000) }
    const text = frame(1, data, eol)
    // The blank line that ends a frame is not part of it.
    const size = Buffer.byteLength(text) - Buffer.byteLength(eol)
    const serve = async (): Promise<string> => (await hostile(t, (response) => trickle(response, `${text}:${eol}${eol}`, 700))).url
    const exact = await subscribed(await serve(), { maxBodySize: size })
    t.same(exact.events, [{ id: '1', event: 'news', data }], `${name}: delivered at ${size} bytes`)
    t.equal(exact.error?.status, 401, `${name}: then the stream ended, and the reconnection was refused`)
    const over = await subscribed(await serve(), { maxBodySize: size - 1 })
    t.same(over.events, [], `${name}: not delivered at ${size - 1}`)
    t.equal(over.error?.code, 'SVC_CLIENT_TOO_LARGE')
  }
})

t.test('heartbeats and comments between frames start a new count; a comment line without end is refused', async (t) => {
  const data = 'c'.repeat(2000)
  const frames = Array.from({ length: 30 }, (_, n) => `:\n\n: a comment\n${frame(n + 1, data)}`).join('')
  const service = await hostile(t, (response) => trickle(response, `${frames}: ${'x'.repeat(20 * KiB)}`, 4 * KiB))
  const { events, error } = await subscribed(service.url, { maxBodySize: 4 * KiB })
  t.equal(events.length, 30)
  t.equal(error?.code, 'SVC_CLIENT_TOO_LARGE')
})

t.test('watch: a state frame over the limit ends the watch the same way', async (t) => {
  const service = await hostile(t, (response) => flood(response, 'event: state\ndata: {"version":1,"state":"', 'x'.repeat(16 * KiB), 4 * MiB))
  const error = await createManifestClient({ url: service.url, maxBodySize: 64 * KiB }).watch('cart', 'alice', fast, () => {}).catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_TOO_LARGE')
  t.match(error.message, '/svc/channels/cart/alice sent an event-stream frame of more than 65536 bytes')
  t.equal(service.connections(), 1)
})

t.test('svc-manifest events: exit 2 with one line, also for a manifest over 8 MiB', async (t) => {
  const service = await hostile(t, (response) => flood(response, `${frame(1, { n: 1 })}data: `, 'x'.repeat(64 * KiB)))
  const handlers = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }
  const run = await cli('events', service.url)
  t.same({ SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }, handlers, 'no Ctrl-C handler left behind in the program that ran it')
  t.equal(run.code, 2)
  t.equal(run.stdout, '{"id":"1","event":"news","data":{"n":1}}\n')
  oneLine(t, run.stderr, /^svc-manifest: GET http:\/\/127\.0\.0\.1:\d+\/svc\/events sent an event-stream frame of more than 8388608 bytes \(maxBodySize\); closed and not reopened/)

  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(9 * MiB) })
    response.end()
  })
  const big = await cli('events', `${origin}/svc.json`)
  t.equal(big.code, 2)
  oneLine(t, big.stderr, 'over the limit of 8388608 bytes (maxBodySize); refused')
})

t.test('the built CLI exits 2 by itself while the server goes on sending', async (t) => {
  const service = await hostile(t, (response) => flood(response, 'data: ', 'x'.repeat(64 * KiB), 256 * MiB))
  const run = await spawned(['events', service.url], 20_000)
  t.equal(run.killed, false, 'it exited by itself')
  t.equal(run.code, 2)
  oneLine(t, run.stderr, 'sent an event-stream frame of more than 8388608 bytes (maxBodySize)')
  const written = await service.written()
  t.ok(written < 32 * MiB, `after ${(written / MiB).toFixed(1)} MiB of the 256 the server would send`)
  t.equal(service.connections(), 1)
})
