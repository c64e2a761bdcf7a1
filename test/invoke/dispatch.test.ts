import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

/** How often each handler ran: a refusal "before dispatch" must leave it untouched. */
const ran = new Map<string, number>()
function count (name: string): void {
  ran.set(name, (ran.get(name) ?? 0) + 1)
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff])

async function itemsApp (t: Test): Promise<FastifyInstance> {
  return await readyApp(t, {}, (app) => {
    app.get('/items/:id', {
      svc: { name: 'items.get', description: 'One item', params: Type.Object({ fields: Type.Optional(Type.Array(Type.String())), verbose: Type.Optional(Type.Boolean()) }) }
    }, async (request) => {
      count('items.get')
      return { method: request.method, params: request.params, query: request.query }
    })
    app.post('/items', {
      svc: { name: 'items.create', description: 'Create an item', params: Type.Object({ name: Type.String(), tags: Type.Optional(Type.Array(Type.String())) }) }
    }, async (request, reply) => reply.code(201).send({ method: request.method, body: request.body }))
    // Path, query and body params in one command, each from the route's own schema.
    app.put('/items/:id', {
      schema: {
        params: Type.Object({ id: Type.Integer() }),
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
        body: Type.Object({ name: Type.String(), meta: Type.Optional(Type.Object({ colour: Type.String() })) }, { additionalProperties: false })
      },
      svc: { name: 'items.replace', description: 'Replace an item' }
    }, async (request) => ({ method: request.method, params: request.params, query: request.query, body: request.body }))
    app.patch('/items/:id', {
      svc: { name: 'items.rename', description: 'Rename an item', params: Type.Object({ name: Type.String() }) }
    }, async (request) => ({ method: request.method, params: request.params, body: request.body }))
    app.delete('/items/:id', { svc: { name: 'items.delete', description: 'Delete an item' } }, async (request, reply) => {
      count('items.delete')
      return reply.code(204).send()
    })
    app.post('/items/:id/notes', { svc: { name: 'items.note', description: 'Anything goes in the body' } }, async (request) => ({ body: request.body ?? null, query: request.query }))
    app.get('/search', { svc: { description: 'Undeclared params go to the query' } }, async (request) => request.query)
  })
}

t.test('GET, POST, PUT, PATCH and DELETE routes, each param in its place', async (t) => {
  const app = await itemsApp(t)

  const get = await execute(app, 'items.get', { id: 'a-1', fields: ['name', 'price'], verbose: true })
  t.equal(get.statusCode, 200)
  t.same(get.json(), { ok: true, result: { method: 'GET', params: { id: 'a-1' }, query: { fields: ['name', 'price'], verbose: true } } }, 'arrays as repeated keys')

  const one = await execute(app, 'items.get', { id: 'a-1', fields: ['name'] })
  t.same(one.json().result.query, { fields: ['name'] }, 'an array of one item stays an array')
  const none = await execute(app, 'items.get', { id: 'a-1', fields: [] })
  t.same(none.json().result.query, {}, 'an empty array sends no key')

  const created = await execute(app, 'items.create', { name: 'kettle', tags: ['kitchen'] })
  t.equal(created.statusCode, 200, 'a 201 is a success')
  t.same(created.json(), { ok: true, result: { method: 'POST', body: { name: 'kettle', tags: ['kitchen'] } } })

  const replaced = await execute(app, 'items.replace', { id: 7, dryRun: true, name: 'mug', meta: { colour: 'blue' } })
  t.same(replaced.json().result, { method: 'PUT', params: { id: 7 }, query: { dryRun: true }, body: { name: 'mug', meta: { colour: 'blue' } } },
    'path, query and body params of one command, an object in the body')

  const renamed = await execute(app, 'items.rename', { id: 'x', name: 'cup' })
  t.same(renamed.json().result, { method: 'PATCH', params: { id: 'x' }, body: { name: 'cup' } })

  const deleted = await execute(app, 'items.delete', { id: 'x' })
  t.equal(deleted.statusCode, 200)
  t.same(deleted.json(), { ok: true, result: null }, 'a 204 gives result null')
})

t.test('params the command does not declare go to its non-path place', async (t) => {
  const app = await itemsApp(t)
  t.same((await execute(app, 'search', { q: 'tea', page: 2 })).json().result, { q: 'tea', page: '2' }, 'GET: the query string')
  t.same((await execute(app, 'items.note', { id: '1', text: 'hi', n: { deep: [1] } })).json().result, { body: { text: 'hi', n: { deep: [1] } }, query: {} }, 'POST: the JSON body')
  t.same((await execute(app, 'items.note', { id: '1' })).json().result, { body: {}, query: {} }, 'POST always sends a JSON object')
  const validated = await execute(app, 'items.replace', { id: 7, name: 'mug', colour: 'red' })
  t.same(validated.json().result.body, { name: 'mug' }, 'the route\'s own validation decides (here it removes what it does not know)')
})

t.test('path params are encoded into their segment, never into another route', async (t) => {
  const app = await itemsApp(t)
  for (const id of ['a b', 'a/b', '../admin', '?x=1#y', '%2e%2e', 'ü', '  ', '...']) {
    const response = await execute(app, 'items.get', { id })
    t.equal(response.statusCode, 200, JSON.stringify(id))
    t.same(response.json().result.params, { id }, `${JSON.stringify(id)} arrives as sent`)
  }
  t.same((await execute(app, 'items.get', { id: 12 })).json().result.params, { id: '12' }, 'a number becomes its text')
  t.same((await execute(app, 'items.get', { id: false })).json().result.params, { id: 'false' }, 'so does a boolean')
})

t.test('params that no URL can carry are INVALID_PARAMS, before the route runs', async (t) => {
  const app = await itemsApp(t)
  ran.clear()
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{}, /^Missing path param "id": the route's URL needs it\.$/],
    [{ fields: ['x'] }, /Missing path param "id"/],
    [{ id: { nested: 1 } }, /^Path param "id" must be a string, number or boolean; got an object\.$/],
    [{ id: ['a'] }, /Path param "id" must be a string, number or boolean; got an array/],
    [{ id: null }, /got null/],
    [{ id: '' }, /^Path param "id" cannot be "": a URL cannot carry it as a segment\.$/],
    [{ id: '.' }, /cannot be "\."/],
    [{ id: '..' }, /cannot be "\.\."/],
    [{ id: 'a', fields: { a: 1 } }, /^Query param "fields" must be a string, number, boolean or an array of them; got an object, which a query string cannot carry\.$/],
    [{ id: 'a', fields: ['a', { b: 1 }] }, /got an array holding an object/],
    [{ id: 'a', fields: [['a']] }, /got an array holding an array/],
    [{ id: 'a', fields: [null] }, /got an array holding null/],
    [{ id: 'a', verbose: null }, /Query param "verbose" .* got null/]
  ]
  for (const [params, message] of cases) {
    const response = await execute(app, 'items.get', params)
    t.equal(response.statusCode, 400, JSON.stringify(params))
    t.equal(response.json().error.code, 'INVALID_PARAMS')
    t.equal(response.json().error.status, 400)
    t.match(response.json().error.message, message)
  }
  t.equal(ran.get('items.get'), undefined, 'the route never ran')
  const deleted = await execute(app, 'items.delete', {})
  t.equal(deleted.statusCode, 400)
  t.equal(ran.get('items.delete'), undefined)
})

t.test('params nested deeper than JSON.stringify goes are refused, not a crash', async (t) => {
  const app = await itemsApp(t)
  const deep = '['.repeat(20_000) + ']'.repeat(20_000)
  const headers = { 'content-type': 'application/json' }
  const executed = await app.inject({ method: 'POST', url: '/svc/execute', headers, payload: `{"command":"items.note","params":{"id":"1","x":${deep}}}` })
  t.equal(executed.statusCode, 400)
  t.same(executed.json().error, { code: 'INVALID_PARAMS', message: 'The params are nested too deeply to be sent as JSON.', status: 400 })
  const piped = await app.inject({ method: 'POST', url: '/svc/pipeline', headers, payload: `{"steps":[{"command":"items.note","params":{"id":"1","x":${deep}}}]}` })
  t.equal(piped.statusCode, 200)
  t.same(piped.json().results[0].error, { code: 'INVALID_PARAMS', message: 'The params are nested too deeply to look for references in them.', status: 400 })
})

t.test('what the route answers: text, binary, JSON that is not, errors and redirects', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/readme', { svc: { description: 'Plain text' } }, async (request, reply) => reply.type('text/markdown; charset=utf-8').send('# Shop\n'))
    app.get('/logo', { svc: { description: 'Binary' } }, async (request, reply) => reply.type('image/png').send(PNG))
    app.get('/blob', { svc: { description: 'Binary without a type' } }, async (request, reply) => {
      reply.removeHeader('content-type')
      reply.raw.writeHead(200, { 'content-length': 2 })
      reply.raw.end(Buffer.from([1, 2]))
      return reply
    })
    app.get('/broken', { svc: { description: 'Says JSON, is not' } }, async (request, reply) => reply.type('application/json').send('{"half":'))
    app.get('/problem', { svc: { description: 'A +json type' } }, async (request, reply) => reply.type('application/problem+json').send({ detail: 'x' }))
    app.get('/boom', { svc: { description: 'Throws' } }, async () => { throw new Error('kaboom') })
    app.get('/teapot', { svc: { description: 'A 418 with a code' } }, async (request, reply) => reply.code(418).send({ statusCode: 418, code: 'TEAPOT', error: 'I\'m a Teapot', message: 'I only brew tea' }))
    app.get('/gone', { svc: { description: 'A 410 in text' } }, async (request, reply) => reply.code(410).type('text/plain').send('gone for good'))
    app.get('/conflict', { svc: { description: 'A 409 without a body' } }, async (request, reply) => reply.code(409).send())
    app.get('/odd', { svc: { description: 'A status Node has no text for' } }, async (request, reply) => reply.code(499).send())
    app.get('/list', { svc: { description: 'A JSON array error body' } }, async (request, reply) => reply.code(422).send([1]))
    app.get('/moved', { svc: { description: 'A redirect' } }, async (request, reply) => reply.redirect('/readme'))
    app.get('/bad-json-error', { svc: { description: 'An error that says JSON and is not' } }, async (request, reply) => reply.code(400).type('application/json').send('oops'))
    app.get('/overloaded', { svc: { description: '503' } }, async (request, reply) => reply.code(503).send({ message: 'try later' }))
  })

  t.same((await execute(app, 'readme')).json(), { ok: true, result: '# Shop\n' }, 'text/* is passed as text')
  const logo = await execute(app, 'logo')
  t.same(logo.json(), { ok: true, result: PNG.toString('base64'), encoding: 'base64', contentType: 'image/png' })
  t.same(Buffer.from(logo.json().result, 'base64'), PNG, 'the bytes survive')
  t.same((await execute(app, 'blob')).json(), { ok: true, result: 'AQI=', encoding: 'base64', contentType: 'application/octet-stream' })
  t.same((await execute(app, 'broken')).json(), { ok: true, result: '{"half":' }, 'malformed JSON is passed as its text')
  t.same((await execute(app, 'problem')).json(), { ok: true, result: { detail: 'x' } })

  const boom = await execute(app, 'boom')
  t.equal(boom.statusCode, 500)
  t.same(boom.json(), { ok: false, error: { code: 'INTERNAL_ERROR', message: 'kaboom', status: 500 } }, 'the message the route sent, no stack')
  const teapot = await execute(app, 'teapot')
  t.equal(teapot.statusCode, 418)
  t.same(teapot.json(), { ok: false, error: { code: 'COMMAND_FAILED', message: 'I only brew tea', status: 418, cause: 'TEAPOT' } })
  t.same((await execute(app, 'gone')).json().error, { code: 'COMMAND_FAILED', message: 'gone for good', status: 410 })
  t.same((await execute(app, 'conflict')).json().error, { code: 'CONFLICT', message: 'Conflict', status: 409 }, 'no body: the status text')
  t.same((await execute(app, 'odd')).json().error, { code: 'COMMAND_FAILED', message: 'HTTP 499', status: 499 })
  t.same((await execute(app, 'list')).json().error, { code: 'COMMAND_FAILED', message: 'Unprocessable Entity', status: 422 })
  const moved = await execute(app, 'moved')
  t.equal(moved.statusCode, 502, 'a redirect is not a result')
  t.same(moved.json().error, { code: 'INTERNAL_ERROR', message: 'The route answered 302, which is not a result.', status: 502 })
  t.equal(moved.headers.location, undefined, 'and is not followed or relayed')
  t.same((await execute(app, 'bad-json-error')).json().error, { code: 'INVALID_PARAMS', message: 'Bad Request', status: 400 }, 'unreadable: the status text')
  t.same((await execute(app, 'overloaded')).json().error, { code: 'INTERNAL_ERROR', message: 'try later', status: 503 })
})

t.test('route URLs of every find-my-way form', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    const echo = async (request: { params: unknown }) => request.params
    app.get('/files/*', { svc: { name: 'files.read', description: 'Wildcard' } }, echo)
    app.get('/reports/:year-:month.csv', { svc: { name: 'reports.get', description: 'Two params in one segment' } }, echo)
    app.get('/orders/:id(^\\d+)/lines', { svc: { name: 'orders.lines', description: 'A param with a regexp' } }, echo)
    app.get('/clock::now/:zone', { svc: { name: 'clock.now', description: 'A literal colon' } }, echo)
    app.get('/docs/:page?', { svc: { name: 'docs.read', description: 'An optional last param' } }, echo)
    app.get('/:lang?', { svc: { name: 'home', description: 'An optional param at the root' } }, async (request) => ({ url: request.url, params: request.params }))
  })
  t.same((await execute(app, 'files.read', { '*': 'a/b c.txt' })).json().result, { '*': 'a/b c.txt' })
  t.same((await execute(app, 'reports.get', { year: 2026, month: '03' })).json().result, { year: '2026', month: '03' })
  t.same((await execute(app, 'orders.lines', { id: 42 })).json().result, { id: '42' })
  const mismatch = await execute(app, 'orders.lines', { id: 'abc' })
  t.equal(mismatch.statusCode, 400, 'a value the regexp refuses makes a URL of no route')
  t.same(mismatch.json().error, {
    code: 'INVALID_PARAMS',
    status: 400,
    message: 'Path param "id" = "abc" does not reach this command\'s route (GET /orders/:id(^\\d+)/lines): the URL it makes belongs to another route or to none.'
  })
  t.same((await execute(app, 'clock.now', { zone: 'UTC' })).json().result, { zone: 'UTC' })
  t.same((await execute(app, 'docs.read', { page: 'intro' })).json().result, { page: 'intro' })
  t.same((await execute(app, 'docs.read')).json().result, {}, 'an optional param left out ends the URL before it')
  t.same((await execute(app, 'home', { lang: 'de' })).json().result, { url: '/de', params: { lang: 'de' } })
  t.same((await execute(app, 'home')).json().result, { url: '/', params: {} })
})

t.test('the caller\'s headers and address reach the route; hop-by-hop and entity headers do not', async (t) => {
  let seen: { headers: Record<string, unknown>, ip: string } | undefined
  const app = await readyApp(t, {}, (app) => {
    app.post('/whoami', { svc: { description: 'Echo' } }, async (request) => {
      seen = { headers: request.headers, ip: request.ip }
      return {}
    })
  })
  await app.inject({
    method: 'POST',
    url: '/svc/execute',
    remoteAddress: '203.0.113.9',
    headers: {
      'x-request-id': 'abc',
      'accept-language': 'de',
      cookie: 'session=1',
      'content-type': 'application/json; charset=utf-8',
      'accept-encoding': 'gzip',
      'proxy-authorization': 'Basic eA==',
      expect: '100-continue',
      te: 'trailers',
      upgrade: 'h2c',
      connection: 'keep-alive',
      'keep-alive': 'timeout=5'
    },
    payload: { command: 'whoami', params: { a: 1 } }
  })
  if (seen === undefined) throw new Error('the route did not run')
  t.equal(seen.ip, '203.0.113.9', 'remoteAddress is the caller\'s')
  t.equal(seen.headers['x-request-id'], 'abc')
  t.equal(seen.headers['accept-language'], 'de')
  t.equal(seen.headers.cookie, 'session=1')
  t.equal(seen.headers['content-type'], 'application/json', 'the body is the plugin\'s JSON')
  t.equal(seen.headers['content-length'], String(Buffer.byteLength('{"a":1}')))
  for (const name of ['accept-encoding', 'proxy-authorization', 'expect', 'te', 'upgrade', 'connection', 'keep-alive']) {
    t.notOk(name in seen.headers, `${name} is not forwarded`)
  }
})

t.test('route headers relayed to the caller: set-cookie, retry-after, rate limits; no others', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/login', { svc: { description: 'Sets cookies' } }, async (request, reply) => {
      reply.header('set-cookie', ['session=abc; HttpOnly; Path=/', 'theme=dark'])
      reply.header('retry-after', '3').header('ratelimit-remaining', '9').header('ratelimit', 'limit=10').header('x-ratelimit-limit', '10')
      reply.header('x-internal', 'secret').header('cache-control', 'no-store')
      return { ok: 1 }
    })
  })
  const response = await execute(app, 'login')
  t.same(response.headers['set-cookie'], ['session=abc; HttpOnly; Path=/', 'theme=dark'])
  t.equal(response.headers['retry-after'], '3')
  t.equal(response.headers['ratelimit-remaining'], '9')
  t.equal(response.headers.ratelimit, 'limit=10')
  t.equal(response.headers['x-ratelimit-limit'], '10')
  t.equal(response.headers['x-internal'], undefined)
  t.equal(response.headers['cache-control'], undefined)
  t.same(response.cookies.map((cookie) => cookie.name), ['session', 'theme'])
})

t.test('only commands are reachable: names of other routes and paths are unknown commands', async (t) => {
  let adminRan = false
  const app = await readyApp(t, {}, (app) => {
    app.get('/admin', async () => { adminRan = true; return 'secret' })
    app.get('/items', { svc: { description: 'Items' } }, async () => [])
  })
  for (const command of ['admin', '/admin', '../admin', 'GET /admin', 'items/../admin', '__proto__', 'constructor', 'toString', 'svc.execute', '']) {
    const response = await execute(app, command)
    t.equal(response.statusCode, 404, JSON.stringify(command))
    t.same(response.json(), { ok: false, error: { code: 'UNKNOWN_COMMAND', message: `Unknown command "${command}". The manifest lists the commands.`, status: 404 } })
  }
  t.equal(adminRan, false)
})

t.test('after a rejected ready(), execute says the app did not start', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/ping', { svc: { description: 'Pong', auth: 'required' } }, async () => 'pong')
  await t.rejects(async () => { await app.ready() }, { code: 'FST_SVC_AUTH_NOT_CONFIGURED' })
  const response = await execute(app, 'ping')
  t.equal(response.statusCode, 500)
  t.same(response.json().error, { code: 'INTERNAL_ERROR', message: 'The app did not start: ready() rejected, and its error says why.', status: 500 })
  const steps = await pipeline(app, { steps: [{ command: 'ping', params: { a: '$prev' } }] })
  t.same(steps.json().results[0].error, { code: 'INTERNAL_ERROR', message: 'The app did not start: ready() rejected, and its error says why.', status: 500 }, 'a pipeline step too')
})

t.test('a call while the app closes is refused, not left hanging', async (t) => {
  let release: () => void = () => {}
  let entered: () => void = () => {}
  const inside = new Promise<void>((resolve) => { entered = resolve })
  const app = await readyApp(t, {}, (app) => {
    app.get('/slow', { svc: { description: 'Waits' } }, async () => {
      entered()
      await new Promise<void>((resolve) => { release = resolve })
      return 1
    })
    app.get('/fast', { svc: { description: 'Answers' } }, async () => 2)
  })
  const running = app.inject({ method: 'POST', url: '/svc/pipeline', payload: { steps: [{ command: 'slow' }, { command: 'fast' }] } })
  await inside
  const closed = app.close()
  release()
  const response = await running
  await closed
  t.same(response.json().results[1], { command: 'fast', ok: false, error: { code: 'INTERNAL_ERROR', message: 'The server is shutting down.', status: 503 } })
})
