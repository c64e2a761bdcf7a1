import t from 'tap'
import { answerOf, InnerRequest, InnerResponse, InnerSocket } from '../../lib/http/inner.js'
import { isJsonText } from '../../lib/http/json-text.js'

// The inner request and response stand for Node's own on the route's side: what a route or a plugin may
// call on `request.raw` and `reply.raw` must behave as Node's does.

function pair (body?: string): { request: InnerRequest, response: InnerResponse } {
  const socket = new InnerSocket('10.0.0.7', { remotePort: 5123, remoteFamily: 'IPv4', encrypted: true, localAddress: '10.0.0.1', localPort: 443 })
  const request = new InnerRequest('POST', '/things?x=1', { host: 'shop.example', 'x-tag': ['a', 'b'], accept: 'application/json' }, socket, body)
  return { request, response: new InnerResponse(request) }
}

t.test('the request: its head as Node gives it, its body as a stream', async (t) => {
  const { request } = pair('{"a":1}')
  t.same(request.rawHeaders, ['host', 'shop.example', 'x-tag', 'a', 'x-tag', 'b', 'accept', 'application/json'])
  t.equal(request.connection, request.socket)
  t.match(request.socket, { remoteAddress: '10.0.0.7', remotePort: 5123, remoteFamily: 'IPv4', encrypted: true, localAddress: '10.0.0.1', localPort: 443 })
  t.equal(request.socket.setTimeout(), request.socket)
  let closes = 0
  request.socket.on('close', () => { closes++ })
  t.equal(request.socket.destroy().destroyed, true)
  request.socket.destroy()
  t.equal(closes, 1, 'destroyed, the socket emits close, once')
  let text = ''
  for await (const chunk of request) text += String(chunk)
  t.equal(text, '{"a":1}')
  t.equal(request.complete, true)
  const empty = new InnerRequest('GET', '/', {}, new InnerSocket('::1', undefined), undefined)
  for await (const chunk of empty) t.fail(`no body expected, got ${String(chunk)}`)
  t.equal(empty.socket.remotePort, undefined)
})

t.test("the inner socket tells the caller's address and transport, and never hands out the caller's socket", async (t) => {
  const caller = { remotePort: 5123, remoteFamily: 'IPv4', encrypted: false, localAddress: '127.0.0.1', localPort: 3000, write: () => true }
  const socket = new InnerSocket('127.0.0.1', caller)
  t.equal(socket.localPort, 3000)
  t.notOk(Object.values(socket).includes(caller), 'no own property of the inner socket is the caller\'s socket')
  t.notOk('write' in socket, 'nothing can be written to the caller through it')
})

t.test('the response: headers, status and body as ServerResponse keeps them', async (t) => {
  const { response } = pair()
  response.setHeader('X-One', '1')
  response.appendHeader('Vary', 'accept')
  response.appendHeader('vary', ['origin', 'cookie'])
  response.appendHeader('x-one', '2')
  response.appendHeader('x-one', '3')
  response.appendHeader('x-list', ['a', 'b'])
  t.same(response.getHeader('vary'), ['accept', 'origin', 'cookie'])
  t.same(response.getHeader('x-one'), ['1', '2', '3'])
  t.ok(response.hasHeader('X-LIST'))
  response.removeHeader('x-list')
  t.same(response.getHeaderNames(), ['x-one', 'vary'])
  t.equal(response.socket, response.req.socket)
  t.equal(response.connection, response.req.socket)
  t.equal(response.setTimeout(), response)
  let hinted = false
  response.writeEarlyHints({ link: '</a>; rel=preload' }, () => { hinted = true })
  response.writeEarlyHints({ link: '</a>; rel=preload' })
  t.equal(hinted, true)
  response.writeContinue()
  response.writeHead(201, ['Content-Type', 'text/plain', 'X-Two', '2'])
  t.equal(response.headersSent, true)
  t.throws(() => response.setHeader('x-late', '1'), { code: 'ERR_HTTP_HEADERS_SENT' })
  t.throws(() => response.removeHeader('x-one'), { code: 'ERR_HTTP_HEADERS_SENT' })
  t.throws(() => response.writeHead(200), { code: 'ERR_HTTP_HEADERS_SENT' })
  response.write('caf')
  response.write('c3a9', 'hex')
  response.addTrailers({ 'x-sum': '1' })
  response.addTrailers({ 'x-more': '2' })
  t.equal(response.finished, false)
  response.end()
  t.equal(response.finished, true)
  t.same(response.trailers, { 'x-sum': '1', 'x-more': '2' })
  const answer = answerOf(response)
  t.equal(answer.statusCode, 201)
  t.match(answer.headers, { 'content-type': 'text/plain', 'x-two': '2', vary: ['accept', 'origin', 'cookie'] })
  t.equal(String(answer.body), 'café')
})

t.test('writeHead with a status message and an object of headers; flushHeaders; an empty body', async (t) => {
  const { response } = pair()
  response.writeHead(204, 'Nothing', { 'X-Three': '3', 'X-None': undefined })
  t.equal(response.statusMessage, 'Nothing')
  t.equal(response.hasHeader('x-none'), false)
  response.end()
  t.same(answerOf(response), { statusCode: 204, headers: { 'x-three': '3' }, body: '' })
  const flushed = pair().response
  flushed.flushHeaders()
  t.equal(flushed.headersSent, true)
  const ended = pair().response
  ended.end()
  t.equal(ended.headersSent, true)
})

t.test('a JSON text is recognised without being parsed, as JSON.parse would judge it', async (t) => {
  const valid = ['0', '-0.5e+3', '1E9', ' "a\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t" ', '[]', '{}', '[1,[2,{"a":[]}]]', '{ "a" : 1 , "b" : [ true , false , null ] }', '[' + '['.repeat(50_000) + ']'.repeat(50_000) + ']']
  const invalid = ['', ' ', '01', '1.', '-', '+1', '.5', '1e', '1e+', '"a', '"\\x"', '"\\u12G4"', '[1,]', '{"a":1,}', '{"a"}', '{a:1}', '{"a" 1}', '[1 2]', 'tru', 'nul', 'fals', '"\n"', '1 2', '[1}', '{"a":1]', '[', '{"a":1', '[1,2', 'NaN', '{,}']
  for (const text of valid) t.ok(isJsonText(text), `valid: ${text.slice(0, 30)}`)
  for (const text of invalid) {
    t.throws(() => JSON.parse(text), `JSON.parse refuses ${JSON.stringify(text)}`)
    t.notOk(isJsonText(text), `invalid: ${JSON.stringify(text)}`)
  }
})
