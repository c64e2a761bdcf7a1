import { request as httpRequest, type ClientRequest } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import t from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'
import { httpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'
import { pause } from '../helpers/sse.js'

// Deadlines (`invoke.timeout`, `svc.timeout`) and `request.svc.signal`: a call that passes its deadline is
// cancelled (its route's signal aborts, its request closes) and answers 504 TIMEOUT; a caller that goes
// away, or the app closing, aborts the signal too; no timer outlives a call.

interface Seen {
  started: number
  aborted: unknown[]
  rawClosed: number
  finished: number
  /** What `request.svc.signal` said when the idiom route, which never read it before, read it at its request's close. */
  readLate: unknown[]
}

function seen (): Seen {
  return { started: 0, aborted: [], rawClosed: 0, finished: 0, readLate: [] }
}

/** A job that runs until told to stop: it watches `request.svc.signal`. */
function jobRoutes (log: Seen, svcTimeout?: number) {
  return (app: FastifyInstance): void => {
    app.get('/job', { svc: { name: 'job', description: 'A long job', ...(svcTimeout === undefined ? {} : { timeout: svcTimeout }) } }, async (request) => {
      log.started++
      const { signal } = request.svc
      request.raw.on('close', () => { log.rawClosed++ })
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => { log.aborted.push(signal.reason); resolve() }, { once: true })
      })
      return { stopped: true }
    })
    app.get('/quick', { svc: { name: 'quick', description: 'Answers at once' } }, async (request) => {
      request.raw.on('close', () => { log.rawClosed++ })
      log.finished++
      return { ok: 1, aborted: request.svc.signal.aborted }
    })
    // Ignores the signal; stops only when its request closes (the common idiom).
    app.get('/idiom', { svc: { name: 'idiom', description: 'Listens to close only' } }, async (request, reply) => {
      log.started++
      await new Promise<void>((resolve) => {
        request.raw.on('close', () => {
          log.rawClosed++
          const { signal } = request.svc
          log.readLate.push(signal.aborted ? signal.reason : 'not aborted')
          resolve()
        })
      })
      return reply.send({ never: 'read' })
    })
  }
}

/**
 * A request on its own connection, sent, whose answer nobody reads: the test destroys it to go away. With a
 * `body`, POSTed as JSON.
 */
function sent (origin: string, path: string, body?: unknown): ClientRequest {
  const request = body === undefined
    ? httpRequest(new URL(path, origin), { agent: false })
    : httpRequest(new URL(path, origin), { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false })
  request.on('error', () => {})
  request.end(body === undefined ? undefined : JSON.stringify(body))
  return request
}

/** POST /svc/execute on its own connection (closed after the answer), resolving to status and body. */
function postExecute (origin: string, body: unknown): Promise<{ status: number, json: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL('/svc/execute', origin), { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { text += chunk })
      response.on('end', () => { resolve({ status: response.statusCode as number, json: JSON.parse(text) }) })
    })
    request.on('error', reject)
    request.end(JSON.stringify(body))
  })
}

function activeTimers (): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
}

t.test('invoke.timeout: the call answers 504 TIMEOUT, the route is stopped, and no timer is left', async (t) => {
  const log = seen()
  const app = await readyApp(t, { invoke: { timeout: 200 } }, jobRoutes(log))
  const baseline = activeTimers()
  const began = Date.now()
  const response = await execute(app, 'job')
  t.equal(response.statusCode, 504)
  t.match(response.json(), { ok: false, error: { code: 'TIMEOUT', status: 504, message: /Command "job" did not finish within its deadline of 200 ms \(invoke.timeout\)/ } })
  t.ok(Date.now() - began < 3000, 'answered at the deadline')
  t.equal(log.aborted.length, 1, 'the route\'s signal aborted')
  t.match(log.aborted[0], { name: 'AbortError', code: 'TIMEOUT', status: 504 })
  t.equal(log.rawClosed, 1, 'the route\'s request closed')
  // A call that ends in time clears its timer.
  const quick = await execute(app, 'quick')
  t.same(quick.json(), { ok: true, result: { ok: 1, aborted: false } })
  t.equal(log.rawClosed, 2, 'the request closes when its response completes normally too')
  t.equal(activeTimers(), baseline, 'no timer left behind')
})

t.test('svc.timeout is the command\'s own deadline; 0 is none', async (t) => {
  const log = seen()
  const app = await readyApp(t, { invoke: { timeout: 0 } }, jobRoutes(log, 150))
  const response = await execute(app, 'job')
  t.equal(response.statusCode, 504)
  t.match(response.json().error.message, /150 ms \(svc.timeout\)/)
  // invoke.timeout 0: the idiom route runs until its caller goes away, with no timer at all.
  const baseline = activeTimers()
  const origin = await listening(t, app)
  const request = sent(origin, '/svc/execute', { command: 'idiom' })
  while (log.started < 2) await pause(10)
  t.equal(activeTimers(), baseline, 'no deadline: no timer')
  request.destroy()
  const began = Date.now()
  while (log.rawClosed < 2 && Date.now() - began < 3000) await pause(10)
  t.equal(log.rawClosed, 2, 'the caller going away closes the route\'s request')
  t.match(log.readLate, [{ name: 'AbortError', status: 503, message: /caller went away/ }], 'a signal first read after the call was cancelled is aborted, with its cause')
})

t.test('the execute caller going away aborts the route\'s signal with its cause', async (t) => {
  const log = seen()
  const app = await readyApp(t, {}, jobRoutes(log))
  const origin = await listening(t, app)
  const request = sent(origin, '/svc/execute', { command: 'job' })
  while (log.started < 1) await pause(10)
  request.destroy()
  const began = Date.now()
  while (log.aborted.length < 1 && Date.now() - began < 3000) await pause(10)
  t.match(log.aborted[0], { name: 'AbortError', status: 503, message: /caller went away/ })
  t.equal(log.rawClosed, 1)
})

t.test('a pipeline step has the deadline too, and the pipeline stops there', async (t) => {
  const log = seen()
  const app = await readyApp(t, { invoke: { timeout: 150 } }, jobRoutes(log))
  const response = await pipeline(app, { steps: [{ command: 'quick' }, { command: 'job' }, { command: 'quick' }] })
  t.equal(response.statusCode, 200)
  const { ok, results } = response.json()
  t.equal(ok, false)
  t.equal(results.length, 2)
  t.match(results[1], { command: 'job', ok: false, error: { code: 'TIMEOUT', status: 504 } })
})

t.test('a direct call: its signal aborts when its caller goes away, and when the app closes', async (t) => {
  const log = seen()
  const app = await readyApp(t, { invoke: { timeout: 0 } }, jobRoutes(log))
  const origin = await listening(t, app)
  const request = sent(origin, '/job')
  while (log.started < 1) await pause(10)
  request.destroy()
  let began = Date.now()
  while (log.aborted.length < 1 && Date.now() - began < 3000) await pause(10)
  t.match(log.aborted[0], { status: 503, message: /caller went away/ })

  // A direct call that completes is not aborted afterwards.
  const done = await app.inject('/quick')
  t.same(done.json(), { ok: 1, aborted: false })

  // Through execute and directly, a job still running is cancelled when the app closes.
  sent(origin, '/job')
  const viaExecute = postExecute(origin, { command: 'job' })
  while (log.started < 2) await pause(10)
  const closing = app.close()
  const answer = await viaExecute
  t.equal(answer.status, 503)
  t.match(answer.json, { error: { message: /server is shutting down/ } })
  await closing
  began = Date.now()
  while (log.aborted.length < 3 && Date.now() - began < 3000) await pause(10)
  t.equal(log.aborted.length, 3)
  t.match(log.aborted.slice(1), [{ message: /shutting down/ }, { message: /shutting down/ }])
})

t.test('request.svc is one object per request; progress of a direct call goes nowhere', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/p', { svc: { name: 'p', description: 'Reports progress' } }, async (request: FastifyRequest) => {
      const first = request.svc
      request.svc.progress(1, { total: 2, message: 'half' })
      request.svc.progress(1)
      const errors: string[] = []
      for (const call of [() => { request.svc.progress(Number.NaN) }, () => { request.svc.progress(2, { total: Infinity }) }, () => { request.svc.progress(2, { message: 5 as unknown as string }) }]) {
        try { call() } catch (error) { errors.push((error as Error).message) }
      }
      return { same: first === request.svc, errors }
    })
  })
  const response = await app.inject('/p')
  t.match(response.json(), { same: true, errors: [/progress must be a finite number/, /total must be a finite number/, /message must be a string/] })
})

t.test('a direct POST whose body was read: its caller still waits, its signal is not aborted', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/import', { svc: { name: 'import', description: 'Reads a body, then works' } }, async (request) => {
      const { signal } = request.svc
      await pause(100)
      return { aborted: signal.aborted, size: JSON.stringify(request.body).length }
    })
  })
  const origin = await listening(t, app)
  const response = await fetch(new URL('/import', origin), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: 'x'.repeat(100_000) }) })
  t.same(await response.json(), { aborted: false, size: 100_011 }, 'Node closes a request once its body is read; the answer is still wanted')
})

t.test('a direct call\'s signal first read after its caller left is aborted; read after its answer, it is not', async (t) => {
  const read: Record<string, { aborted: boolean, reason?: string }> = {}
  const app = await readyApp(t, {}, (app) => {
    app.get('/slow', { svc: { name: 'slow', description: 'Reads its signal late' } }, async (request) => {
      await pause(300)
      const { signal } = request.svc
      read.slow = { aborted: signal.aborted, reason: (signal.reason as Error | undefined)?.message }
      return {}
    })
    app.get('/answered', { svc: { name: 'answered', description: 'Reads its signal once answered' } }, async () => ({}))
    app.addHook('onResponse', async (request) => {
      if (request.url === '/answered') read.answered = { aborted: request.svc.signal.aborted }
    })
  })
  const origin = await listening(t, app)
  const request = sent(origin, '/slow')
  await pause(100)
  request.destroy()
  await (await fetch(new URL('/answered', origin))).json()
  const began = Date.now()
  while ((read.slow === undefined || read.answered === undefined) && Date.now() - began < 3000) await pause(10)
  t.match(read.slow, { aborted: true, reason: /caller went away/ })
  t.same(read.answered, { aborted: false })
})

t.test('a signal read after its request closed is aborted at once', async (t) => {
  const late: { read?: AbortSignal } = {}
  const app = await readyApp(t, {}, (app) => {
    app.get('/late', { svc: { name: 'late', description: 'Reads its signal late' } }, (request, reply) => {
      request.raw.on('close', () => { late.read = request.svc.signal })
      reply.hijack()
    })
  })
  const origin = await listening(t, app)
  const request = sent(origin, '/late')
  await pause(100)
  request.destroy()
  const began = Date.now()
  while (late.read === undefined && Date.now() - began < 3000) await pause(10)
  t.equal(late.read?.aborted, true)
})

t.test('a route called through app.inject() is stopped at its deadline too', async (t) => {
  const log = seen()
  const waitForClose = async (request: FastifyRequest): Promise<unknown> => {
    log.started++
    await new Promise<void>((resolve) => { request.raw.on('close', () => { log.rawClosed++; resolve() }) })
    return { never: 'read' }
  }
  const viaInject = { svcDispatch: 'inject' as const }
  const app = await readyApp(t, { invoke: { timeout: 150 } }, (app) => {
    app.get('/socketish', { svc: { name: 'socketish', description: 'Needs a real connection' }, config: viaInject }, async (request) => await waitForClose(request as FastifyRequest))
    app.post('/posted', { svc: { name: 'posted', description: 'Reads a body first' }, config: viaInject }, async (request) => await waitForClose(request as FastifyRequest))
  })
  const response = await execute(app, 'socketish')
  t.equal(response.statusCode, 504)
  t.match(response.json().error, { code: 'TIMEOUT', message: /150 ms \(invoke.timeout\)/ })
  const began = Date.now()
  while (log.rawClosed < 1 && Date.now() - began < 3000) await pause(10)
  t.equal(log.rawClosed, 1, 'its request closed')
  // light-my-request closed this request once its body was read: the route misses the close, but the
  // call still ends at its deadline.
  const posted = await execute(app, 'posted', { a: 1 })
  t.equal(posted.statusCode, 504)
})

t.test('an MCP tools/call has the deadline too: 504 TIMEOUT as a tool error, the route\'s signal aborted', async (t) => {
  const log = seen()
  const app = await readyApp(t, { mcp: true, invoke: { timeout: 150 } }, jobRoutes(log))
  const client = await httpClient(t, `${await listening(t, app)}/mcp`)
  const result = await client.callTool({ name: 'job', arguments: {} })
  t.equal(result.isError, true)
  t.match(textJson(result), { code: 'TIMEOUT', status: 504 })
  t.match(log.aborted, [{ code: 'TIMEOUT' }])
})

t.test('calls of one deadline started apart each end at their own deadline', async (t) => {
  const log = seen()
  const app = await readyApp(t, { invoke: { timeout: 300 } }, jobRoutes(log))
  const began = Date.now()
  const first = execute(app, 'job').then((response) => ({ status: response.statusCode, at: Date.now() - began }))
  await pause(150)
  const second = execute(app, 'job').then((response) => ({ status: response.statusCode, at: Date.now() - began }))
  const [a, b] = await Promise.all([first, second])
  t.same([a.status, b.status], [504, 504])
  t.ok(a.at >= 290 && b.at >= 440, `each at its own deadline (${a.at} and ${b.at} ms after the first began)`)
  t.ok(b.at - a.at >= 100, 'the second later than the first, by about the time between them')
  t.equal(log.aborted.length, 2)
})
