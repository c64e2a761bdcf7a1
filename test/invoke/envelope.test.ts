import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

async function app (t: Test) {
  return await readyApp(t, {}, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async (request) => ({ pong: true, query: request.query }))
  })
}

t.test('a call answers 200 with ok, result and the requestId it was given', async (t) => {
  const server = await app(t)
  const response = await server.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'ping', requestId: 'r-1', other: 'ignored' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  t.same(response.json(), { ok: true, result: { pong: true, query: {} }, requestId: 'r-1' })
  t.same(Object.keys(response.json()), ['ok', 'result', 'requestId'])
  const numbered = await server.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'nope', requestId: 7 } })
  t.same(numbered.json(), { ok: false, error: { code: 'UNKNOWN_COMMAND', message: 'Unknown command "nope". The manifest lists the commands.', status: 404 }, requestId: 7 })
})

t.test('malformed envelopes are INVALID_REQUEST', async (t) => {
  const server = await app(t)
  const json = { 'content-type': 'application/json' }
  const cases: Array<{ label: string, payload: string, headers?: Record<string, string>, status?: number, message: RegExp, cause?: string }> = [
    { label: 'not JSON', payload: '{"command":', message: /not valid JSON/, cause: 'FST_ERR_CTP_INVALID_JSON_BODY' },
    { label: 'an empty JSON body', payload: '', message: /empty/i, cause: 'FST_ERR_CTP_EMPTY_JSON_BODY' },
    { label: 'a JSON array', payload: '[]', message: /^The body must be a JSON object \{ command, params\?, requestId\? \}\.$/ },
    { label: 'JSON null', payload: 'null', message: /must be a JSON object/ },
    { label: 'a JSON string', payload: '"ping"', message: /must be a JSON object/ },
    { label: 'plain text', payload: 'ping', headers: { 'content-type': 'text/plain' }, message: /must be a JSON object/ },
    { label: 'command missing', payload: '{}', message: /^"command" must be a string: the name of a command of the manifest\.$/ },
    { label: 'command not a string', payload: '{"command":["ping"]}', message: /"command" must be a string/ },
    { label: 'params an array', payload: '{"command":"ping","params":[1]}', message: /^"params" must be an object of param values when present\.$/ },
    { label: 'params null', payload: '{"command":"ping","params":null}', message: /"params" must be an object/ },
    { label: 'params a string', payload: '{"command":"ping","params":"q=1"}', message: /"params" must be an object/ },
    { label: 'a __proto__ key (Fastify refuses it)', payload: '{"command":"ping","params":{"__proto__":{"x":1}}}', message: /not valid JSON/, cause: 'FST_ERR_CTP_INVALID_JSON_BODY' },
    { label: 'another media type', payload: '<command/>', headers: { 'content-type': 'application/xml' }, status: 415, message: /Unsupported Media Type/, cause: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }
  ]
  for (const { label, payload, headers = json, status = 400, message, cause } of cases) {
    const response = await server.inject({ method: 'POST', url: '/svc/execute', headers, payload })
    t.equal(response.statusCode, status, label)
    const { ok, error } = response.json()
    t.equal(ok, false, label)
    t.equal(error.code, 'INVALID_REQUEST', label)
    t.equal(error.status, status, label)
    t.match(error.message, message, label)
    t.equal(error.cause, cause, label)
  }
})

t.test('a body over the body limit is PAYLOAD_TOO_LARGE', async (t) => {
  const server = await readyApp(t, {}, (app) => {
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 1)
  }, { bodyLimit: 100 })
  const response = await execute(server, 'ping', { padding: 'x'.repeat(200) })
  t.equal(response.statusCode, 413)
  t.same(response.json().error, { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large', status: 413, cause: 'FST_ERR_CTP_BODY_TOO_LARGE' })
})

t.test('only POST: other methods on the endpoints are not found', async (t) => {
  const server = await app(t)
  t.equal((await server.inject({ method: 'GET', url: '/svc/execute' })).statusCode, 404)
  t.equal((await server.inject({ method: 'PUT', url: '/svc/pipeline', payload: {} })).statusCode, 404)
})

t.test('an app-wide hook that refuses the outer request gets the envelope too', async (t) => {
  const server = await readyApp(t, {}, (app) => {
    app.addHook('onRequest', async (request) => {
      if (request.headers['x-block'] === 'teapot') throw Object.assign(new Error('No coffee here'), { statusCode: 418, code: 'APP_TEAPOT' })
      if (request.headers['x-block'] === 'crash') throw new Error('hook crashed')
    })
    app.get('/ping', { svc: { description: 'Pong' } }, async () => 1)
  })
  const teapot = await execute(server, 'ping', {}, { 'x-block': 'teapot' })
  t.equal(teapot.statusCode, 418)
  t.same(teapot.json(), { ok: false, error: { code: 'COMMAND_FAILED', message: 'No coffee here', status: 418, cause: 'APP_TEAPOT' } })
  const crash = await execute(server, 'ping', {}, { 'x-block': 'crash' })
  t.equal(crash.statusCode, 500)
  t.same(crash.json(), { ok: false, error: { code: 'INTERNAL_ERROR', message: 'hook crashed', status: 500 } })
})

t.test('a text or binary result carries the requestId it was given, as a JSON one does', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/note', { svc: { description: 'A text' } }, async (request, reply) => reply.type('text/plain').send('hello'))
    app.get('/logo', { svc: { description: 'Bytes' } }, async (request, reply) => reply.type('image/png').send(Buffer.from([1, 2, 3])))
  })
  const call = async (command: string) => (await app.inject({ method: 'POST', url: '/svc/execute', payload: { command, requestId: 'r-1' } })).json()
  t.same(await call('note'), { ok: true, result: 'hello', requestId: 'r-1' })
  t.same(await call('logo'), { ok: true, result: 'AQID', encoding: 'base64', contentType: 'image/png', requestId: 'r-1' })
})
