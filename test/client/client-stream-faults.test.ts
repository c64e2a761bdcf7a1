import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { CommandError, createManifestClient, ManifestClientError, type ManifestClient } from '../../lib/client/index.js'
import { rawServer, sendJson } from '../helpers/raw-server.js'

// A streamed execute from servers that misbehave on purpose: frames that are none, a stream without its
// end, a frame without bounds, a cut connection; and a server that answers the whole call at once.

/** A client calling `{origin}/svc/execute` on a server that writes `frames` as an event stream. */
async function streaming (t: Test, write: (response: ServerResponse) => void, options: { maxBodySize?: number } = {}): Promise<ManifestClient> {
  const { origin } = await rawServer(t, (request, response) => {
    request.resume()
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    write(response)
  })
  return createManifestClient({ url: `${origin}/.well-known/svc.json`, invokeUrl: `${origin}/svc`, ...options })
}

async function rejection (promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return await promise.then(() => { throw new Error('expected a rejection') }, (error: Error & Record<string, unknown>) => error)
}

async function drained (iterator: AsyncGenerator<unknown, unknown>): Promise<{ pieces: unknown[], result: unknown }> {
  const pieces: unknown[] = []
  let step = await iterator.next()
  for (; step.done !== true; step = await iterator.next()) pieces.push(step.value)
  return { pieces, result: step.value }
}

t.test('a frame type this client does not know is passed over', async (t) => {
  const client = await streaming(t, (response) => {
    response.end('data: {"type":"heartbeat"}\n\ndata: {"type":"chunk","data":1}\n\ndata: {"type":"done","result":2}\n\n')
  })
  t.same(await drained(client.stream('x')), { pieces: [1], result: 2 })
  t.equal(await client.execute('x', {}, { onProgress: () => {} }), 2)
})

t.test('data that is not a frame, or a frame without what it carries, is SVC_CLIENT_INVALID_RESPONSE', async (t) => {
  for (const data of ['not json', 'null', '[1]', '{"type":"chunk"}', '{"type":"progress","progress":"1"}', '{"type":"done"}', '{"type":"error","error":{"message":"no code"}}']) {
    const client = await streaming(t, (response) => response.end(`data: ${data}\n\n`))
    const error = await rejection(client.stream('x').next())
    t.type(error, ManifestClientError)
    t.match(error, { code: 'SVC_CLIENT_INVALID_RESPONSE', status: 200, message: `sent an event-stream frame that is not one of a streamed execute: ${data}` }, data)
  }
})

t.test('an error frame without a status is a failure of the call: 500', async (t) => {
  const client = await streaming(t, (response) => response.end('data: {"type":"error","error":{"code":"BUSY","message":"try later"}}\n\n'))
  const error = await rejection(client.stream('x').next())
  t.type(error, CommandError)
  t.match(error, { code: 'BUSY', status: 500, message: 'try later' })
})

t.test('a stream that ends without done or error is SVC_CLIENT_INVALID_RESPONSE; a cut one SVC_CLIENT_NETWORK', async (t) => {
  const ended = await streaming(t, (response) => response.end('data: {"type":"chunk","data":1}\n\n'))
  const iterator = ended.stream('x')
  t.same(await iterator.next(), { done: false, value: 1 })
  t.match(await rejection(iterator.next()), { code: 'SVC_CLIENT_INVALID_RESPONSE', message: /ended its event stream without a done or error frame/ })
  t.match(await rejection(ended.execute('x', {}, { onProgress: () => {} })), { code: 'SVC_CLIENT_INVALID_RESPONSE' })

  const cut = await streaming(t, (response) => {
    response.write('data: {"type":"chunk","data":1}\n\n')
    setTimeout(() => response.destroy(), 20)
  })
  const cutIterator = cut.stream('x')
  t.same(await cutIterator.next(), { done: false, value: 1 })
  t.match(await rejection(cutIterator.next()), { code: 'SVC_CLIENT_NETWORK' })
})

t.test('a frame over maxBodySize ends the call with SVC_CLIENT_TOO_LARGE, while the server may go on', async (t) => {
  const client = await streaming(t, (response) => {
    response.write('data: {"type":"chunk","data":"small"}\n\n')
    response.write(`data: "${'x'.repeat(4096)}`)
  }, { maxBodySize: 1024 })
  const iterator = client.stream('x')
  t.same(await iterator.next(), { done: false, value: 'small' }, 'the frames before it are delivered')
  const error = await rejection(iterator.next())
  t.match(error, { code: 'SVC_CLIENT_TOO_LARGE', message: /^POST http:\/\/127\.0\.0\.1:\d+\/svc\/execute sent an event-stream frame of more than 1024 bytes \(maxBodySize\); refused/ })
})

t.test('a server that answers the whole call at once: no pieces, its result', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    request.resume()
    sendJson(response, { ok: true, result: { all: 'at once' } })
  })
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json`, invokeUrl: `${origin}/svc` })
  t.same(await drained(client.stream('x')), { pieces: [], result: { all: 'at once' } })
  t.same(await client.execute('x', {}, { onProgress: () => t.fail('no progress') }), { all: 'at once' })
})

t.test('what a streamed execute asks: stream true in the envelope, an event stream or JSON, the token', async (t) => {
  const seen: Array<{ body: string, accept: string | undefined, authorization: string | undefined }> = []
  const { origin } = await rawServer(t, (request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
    request.on('end', () => {
      seen.push({ body, accept: request.headers.accept, authorization: request.headers.authorization })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end('data: {"type":"done","result":null}\n\n')
    })
  })
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json`, invokeUrl: `${origin}/svc` })
  t.same(await drained(client.stream('search', { q: 'tea' }, { token: 'secret' })), { pieces: [], result: null })
  t.same(seen, [{ body: '{"command":"search","params":{"q":"tea"},"stream":true}', accept: 'text/event-stream, application/json', authorization: 'Bearer secret' }])
})
