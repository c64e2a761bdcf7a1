import { Readable } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import cors from '@fastify/cors'
import helmet from '@fastify/helmet'
import fastifyJwt from '@fastify/jwt'
import rateLimit from '@fastify/rate-limit'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest, HTTPMethods, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

// The compatibility matrix of command calls: for each plugin or way of answering a route may use, execute
// must give what a direct call of the route gives — its status, the response headers execute relays, and
// its body — because the route's whole lifecycle runs for it.

const RELAYED = /^(www-authenticate|retry-after|set-cookie|ratelimit(-.*)?|x-ratelimit-.*)$/
const ORIGIN = 'https://shop.example'

interface Call {
  method: HTTPMethods
  url: string
  body?: unknown
  headers?: Record<string, string>
}

/** What a caller of the route can compare: status, relayed headers and the body as execute reports it. */
function directAnswer (response: LightMyRequestResponse): { status: number, headers: Record<string, unknown>, body: unknown } {
  const type = String(response.headers['content-type'] ?? '')
  const body = response.statusCode >= 400
    ? (response.json() as { message: string }).message
    : type.includes('json') ? response.json() : response.body
  return { status: response.statusCode >= 400 ? response.statusCode : 200, headers: relayed(response.headers), body }
}

function executeAnswer (response: LightMyRequestResponse): { status: number, headers: Record<string, unknown>, body: unknown } {
  const envelope = response.json()
  return { status: response.statusCode, headers: relayed(response.headers), body: envelope.ok === true ? envelope.result : envelope.error.message }
}

function relayed (headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => RELAYED.test(name)))
}

/** Calls the route directly and through execute with the same headers, and checks both answers are the same. */
async function sameAnswer (t: Test, app: FastifyInstance, call: Call, command: string, params: Record<string, unknown>, message: string): Promise<{ status: number, body: unknown }> {
  const headers = { origin: ORIGIN, ...call.headers }
  const direct = await app.inject({ method: call.method, url: call.url, headers, ...(call.body === undefined ? {} : { payload: call.body as Record<string, unknown> }) })
  const executed = await execute(app, command, params, headers)
  const expected = directAnswer(direct)
  t.same(executeAnswer(executed), expected, message)
  return expected
}

t.test('@fastify/rate-limit on the route: the same counts, 429 and headers as a direct caller gets', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(rateLimit, { global: false, keyGenerator: (request) => String(request.headers['x-client']) })
    app.get('/quote', { config: { rateLimit: { max: 2, timeWindow: 60_000 } }, svc: { description: 'A quote' } }, async () => ({ quote: 'carpe diem' }))
  })
  const statuses: number[] = []
  for (let round = 0; round < 3; round++) {
    // Each side has its own key, so both run through the same sequence of counts.
    const headers = { 'x-client': 'direct' }
    const direct = await app.inject({ method: 'GET', url: '/quote', headers })
    const executed = await execute(app, 'quote', {}, { 'x-client': 'execute' })
    t.equal(executeAnswer(executed).status, directAnswer(direct).status)
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining']) t.equal(executed.headers[name], direct.headers[name], `${name}, call ${round + 1}`)
    t.same(executeAnswer(executed).body, directAnswer(direct).body)
    statuses.push(executed.statusCode)
  }
  t.same(statuses, [200, 200, 429])
})

t.test('@fastify/jwt: request.jwtVerify() in a hook refuses and accepts as on a direct call', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(fastifyJwt, { secret: 'a secret of the compatibility matrix' })
    app.get('/me', {
      onRequest: async (request) => { await request.jwtVerify() },
      svc: { description: 'The caller' }
    }, async (request) => ({ user: request.user }))
  })
  const token = app.jwt.sign({ sub: 'alice' })
  const refused = await sameAnswer(t, app, { method: 'GET', url: '/me' }, 'me', {}, 'no token')
  t.equal(refused.status, 401)
  const answered = await sameAnswer(t, app, { method: 'GET', url: '/me', headers: { authorization: `Bearer ${token}` } }, 'me', {}, 'a valid token')
  t.match(answered.body, { user: { sub: 'alice' } })
})

t.test('@fastify/cookie: the route reads the caller\'s cookies and its Set-Cookie is relayed', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(cookie, { secret: 'cookie secret' })
    app.post('/visits', { svc: { name: 'visits.create', description: 'Counts visits', params: Type.Object({ step: Type.Integer() }) } }, async (request, reply) => {
      const visits = Number(request.cookies.visits ?? 0) + (request.body as { step: number }).step
      reply.setCookie('visits', String(visits), { path: '/', httpOnly: true, signed: true })
      return { visits }
    })
  })
  const answered = await sameAnswer(t, app, { method: 'POST', url: '/visits', body: { step: 2 }, headers: { cookie: 'visits=3' } }, 'visits.create', { step: 2 }, 'cookie read, cookie set')
  t.same(answered.body, { visits: 5 })
})

t.test('@fastify/cors and @fastify/helmet: their hooks run on the inner request and set what they set directly', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(cors, { origin: ORIGIN, credentials: true })
    await app.register(helmet, { global: true })
    // The headers set before the handler (by both plugins' onRequest hooks, helmet's on the raw response).
    app.get('/headers', { svc: { description: 'The response headers set so far' } }, async (request, reply) => reply.getHeaders())
  })
  const answered = await sameAnswer(t, app, { method: 'GET', url: '/headers' }, 'headers', {}, 'the same headers')
  t.match(answered.body, { 'access-control-allow-origin': ORIGIN, 'x-content-type-options': 'nosniff', 'content-security-policy': /default-src/ })
})

t.test('@fastify/compress: the caller\'s Accept-Encoding stays with the outer response; the result is the route\'s JSON', async (t) => {
  const items = Array.from({ length: 200 }, (_, index) => ({ sku: `sku-${index}`, name: 'an item long enough to compress' }))
  const app = await readyApp(t, {}, async (app) => {
    await app.register(compress, { global: true, threshold: 100 })
    app.get('/catalog', { svc: { description: 'Every item' } }, async () => items)
  })
  const direct = await app.inject({ method: 'GET', url: '/catalog', headers: { 'accept-encoding': 'gzip' } })
  t.equal(direct.headers['content-encoding'], 'gzip')
  // The plugin's routes were registered before @fastify/compress, so it leaves the envelope as it is.
  const executed = await execute(app, 'catalog', {}, { 'accept-encoding': 'gzip' })
  t.equal(executed.headers['content-encoding'], undefined)
  t.same(executed.json().result, JSON.parse(gunzipSync(direct.rawPayload).toString()))
})

t.test('a streamed reply, a hijacked reply and reads of request.raw answer as directly', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/stream', { svc: { description: 'A JSON body in chunks' } }, async (request, reply) => {
      reply.type('application/json')
      return Readable.from(['{"parts":', '[1,2', ',3]}'])
    })
    app.get('/text-stream', { svc: { description: 'A text body in chunks' } }, async (request, reply) => {
      reply.type('text/plain')
      return Readable.from([Buffer.from('first '), Buffer.from('second')])
    })
    app.get('/hijacked', { svc: { description: 'Written on the raw response' } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, 'Fine', { 'Content-Type': 'application/json', 'Set-Cookie': 'raw=1' })
      reply.raw.write('{"hijacked":')
      reply.raw.end('true}')
    })
    app.get('/raw', { svc: { description: 'Reads the raw request' } }, async (request) => {
      const { raw } = request
      return {
        method: raw.method,
        url: raw.url,
        host: raw.headers.host,
        address: raw.socket.remoteAddress,
        version: raw.httpVersion,
        ip: request.ip,
        protocol: request.protocol,
        hostname: request.hostname,
        forwarded: raw.rawHeaders.includes('x-trace')
      }
    })
  })
  t.same((await sameAnswer(t, app, { method: 'GET', url: '/stream' }, 'stream', {}, 'a stream')).body, { parts: [1, 2, 3] })
  t.same((await sameAnswer(t, app, { method: 'GET', url: '/text-stream' }, 'text-stream', {}, 'a stream of text')).body, 'first second')
  const hijacked = await sameAnswer(t, app, { method: 'GET', url: '/hijacked' }, 'hijacked', {}, 'hijacked')
  t.same(hijacked, { status: 200, headers: { 'set-cookie': 'raw=1' }, body: { hijacked: true } })
  const raw = await sameAnswer(t, app, { method: 'GET', url: '/raw?x=1', headers: { 'x-trace': 'a' } }, 'raw', { x: '1' }, 'request.raw')
  t.match(raw.body, { method: 'GET', url: '/raw?x=1', address: '127.0.0.1', forwarded: true })
})

t.test('a route that reads the body stream itself, with a body parser of its own context', async (t) => {
  const app = await readyApp(t, {}, async (app) => {
    await app.register(async (child) => {
      child.removeContentTypeParser('application/json')
      child.addContentTypeParser('application/json', async (request: unknown, payload: NodeJS.ReadableStream) => {
        let text = ''
        for await (const chunk of payload) text += String(chunk)
        return { ...JSON.parse(text), streamed: text.length }
      })
      child.post('/notes', { svc: { name: 'notes.create', description: 'Reads its body stream', params: Type.Object({ text: Type.String() }) } }, async (request) => request.body)
    })
  })
  const answered = await sameAnswer(t, app, { method: 'POST', url: '/notes', body: { text: 'hello' } }, 'notes.create', { text: 'hello' }, 'the stream read')
  t.same(answered.body, { text: 'hello', streamed: 16 })
})

t.test('every hook, the serializer and the route\'s error handler run, in the order of a direct call', async (t) => {
  const seen: string[] = []
  const app = await readyApp(t, {}, (app) => {
    const hook = (name: string) => async () => { seen.push(name) }
    app.post('/orders/:id', {
      schema: {
        params: Type.Object({ id: Type.Integer() }),
        body: Type.Object({ qty: Type.Integer({ minimum: 1 }) }),
        response: { 200: Type.Object({ id: Type.Integer(), qty: Type.Integer() }) }
      },
      onRequest: hook('onRequest'),
      preParsing: hook('preParsing'),
      preValidation: hook('preValidation'),
      preHandler: hook('preHandler'),
      preSerialization: hook('preSerialization'),
      onSend: async (request, reply, payload) => { seen.push('onSend'); return payload },
      onResponse: hook('onResponse'),
      onError: hook('onError'),
      errorHandler: async (error, request, reply) => { seen.push('errorHandler'); return await reply.code(409 as 200).send({ message: `refused: ${error.message}` } as unknown as { id: number, qty: number }) },
      svc: { name: 'orders.place', description: 'Place an order' }
    }, async (request) => {
      const { qty } = request.body as { qty: number }
      if (qty > 10) throw new Error('too many')
      // The serializer drops what the response schema does not name.
      return { id: (request.params as { id: number }).id, qty, secret: 'dropped' }
    })
  })
  const calls: Array<[Record<string, unknown>, Call]> = [
    [{ id: 7, qty: 2 }, { method: 'POST', url: '/orders/7', body: { qty: 2 } }],
    [{ id: 7, qty: 0 }, { method: 'POST', url: '/orders/7', body: { qty: 0 } }],
    [{ id: 7, qty: 11 }, { method: 'POST', url: '/orders/7', body: { qty: 11 } }]
  ]
  for (const [params, call] of calls) {
    seen.length = 0
    const direct = await app.inject({ method: call.method, url: call.url, payload: call.body as Record<string, unknown> })
    // onResponse runs once the response has finished: a tick later.
    await new Promise((resolve) => setImmediate(resolve))
    const directHooks = [...seen]
    seen.length = 0
    const executed = await execute(app, 'orders.place', params)
    await new Promise((resolve) => setImmediate(resolve))
    t.same(executeAnswer(executed), directAnswer(direct), `qty ${String(params.qty)}`)
    t.same(seen, directHooks, `qty ${String(params.qty)}: the same hooks in the same order`)
  }
  t.same((await execute(app, 'orders.place', { id: 7, qty: 2 })).json().result, { id: 7, qty: 2 })
})

t.test('routes that ask for it are called through app.inject(); a stream that breaks off is an error', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.route({ method: ['GET'], url: '/agent', config: { svcDispatch: 'inject' }, svc: { description: 'The inner request' }, handler: async (request) => ({ request: request.raw.constructor.name }) })
    app.post('/agent', { config: { svcDispatch: 'inject' }, svc: { name: 'agent.post', description: 'The inner request, with a body', params: Type.Object({ n: Type.Integer() }) } }, async (request) => ({ request: request.raw.constructor.name, body: request.body }))
    app.get('/socket', { websocket: true, svc: { description: 'A route of @fastify/websocket' } } as Record<string, unknown>, async (request: FastifyRequest) => ({ request: request.raw.constructor.name }))
    app.get('/xml', { svc: { description: 'XML text' } }, async (request, reply) => reply.type('application/xml').send('<a/>'))
    app.get('/reset', { svc: { description: 'A connection reset after the head' } }, (request, reply) => {
      reply.hijack()
      reply.raw.writeHead(200, { 'content-type': 'application/json' })
      reply.raw.destroy(new Error('reset'))
    })
    app.get('/light', { svc: { description: 'The inner request' } }, async (request) => ({ request: request.raw.constructor.name }))
    app.get('/broken', { svc: { description: 'A stream that fails' } }, async (request, reply) => {
      reply.type('application/json')
      return new Readable({
        read () {
          this.push('{"partial":')
          this.destroy(new Error('the source failed'))
        }
      })
    })
  })
  t.same((await execute(app, 'agent')).json().result, { request: 'Request' }, 'through app.inject()')
  t.same((await execute(app, 'agent.post', { n: 1 })).json().result, { request: 'Request', body: { n: 1 } }, 'through app.inject(), with a body')
  t.same((await execute(app, 'socket')).json().result, { request: 'Request' }, 'a websocket route through app.inject()')
  t.same((await execute(app, 'xml')).json(), { ok: true, result: Buffer.from('<a/>').toString('base64'), encoding: 'base64', contentType: 'application/xml' })
  t.same((await execute(app, 'reset')).json().error, { code: 'INTERNAL_ERROR', message: 'The route\'s response broke off before it was complete.', status: 502 })
  t.same((await execute(app, 'light')).json().result, { request: 'InnerRequest' }, 'through the router')
  const broken = await execute(app, 'broken')
  t.equal(broken.statusCode, 502)
  t.same(broken.json().error, { code: 'INTERNAL_ERROR', message: 'The route\'s response broke off before it was complete.', status: 502 })
})
