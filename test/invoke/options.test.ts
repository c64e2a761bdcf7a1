import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { FST_SVC_INVALID_OPTION } from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'

const ping = (app: import('fastify').FastifyInstance) => {
  app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
}

t.test('the manifest\'s 200 and 304 name the endpoints in a Link header', async (t) => {
  const app = await readyApp(t, {}, ping)
  const link = '</svc/execute>; rel="svc-execute", </svc/pipeline>; rel="svc-pipeline", </svc/events>; rel="svc-events"'
  const ok = await app.inject('/.well-known/svc.json')
  t.equal(ok.headers.link, link)
  const notModified = await app.inject({ url: '/.well-known/svc.json', headers: { 'if-none-match': ok.headers.etag as string } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.link, link)
  t.equal((await app.inject({ method: 'HEAD', url: '/.well-known/svc.json' })).headers.link, link)
})

t.test('basePath moves the endpoints and their links', async (t) => {
  for (const [basePath, prefix] of [['/api/agent', '/api/agent'], ['/tools/', '/tools'], ['/', '']]) {
    const app = await readyApp(t, { basePath }, ping)
    t.equal((await app.inject('/.well-known/svc.json')).headers.link, `<${prefix}/execute>; rel="svc-execute", <${prefix}/pipeline>; rel="svc-pipeline", <${prefix}/events>; rel="svc-events"`, basePath)
    const executed = await app.inject({ method: 'POST', url: `${prefix}/execute`, payload: { command: 'ping' } })
    t.same(executed.json(), { ok: true, result: 'pong' }, `${basePath}: execute`)
    const piped = await app.inject({ method: 'POST', url: `${prefix}/pipeline`, payload: { steps: [{ command: 'ping' }] } })
    t.equal(piped.json().ok, true, `${basePath}: pipeline`)
    if (prefix !== '') t.equal((await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'ping' } })).statusCode, 404, 'nothing at /svc')
  }
})

t.test('invoke: false removes both routes and their links', async (t) => {
  const app = await readyApp(t, { invoke: false }, ping)
  t.equal((await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'ping' } })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/svc/pipeline', payload: { steps: [{ command: 'ping' }] } })).statusCode, 404)
  t.notOk(app.hasRoute({ method: 'POST', url: '/svc/execute' }), 'no execute route')
  t.notOk(app.hasRoute({ method: 'POST', url: '/svc/pipeline' }), 'no pipeline route')
  const manifest = await app.inject('/.well-known/svc.json')
  t.equal(manifest.statusCode, 200)
  t.equal(manifest.headers.link, '</svc/events>; rel="svc-events"', 'only the events endpoint is named')
  t.equal((await app.inject('/ping')).body, 'pong', 'the routes themselves are untouched')
})

t.test('invoke: true and {} keep the defaults', async (t) => {
  for (const invoke of [true, {}, { maxSteps: undefined }]) {
    const app = await readyApp(t, { invoke }, ping)
    const response = await app.inject({ method: 'POST', url: '/svc/pipeline', payload: { steps: Array(17).fill({ command: 'ping' }) } })
    t.match(response.json().error.message, /1 to 16 steps/, JSON.stringify(invoke))
  }
})

t.test('bad basePath and invoke values are refused when the plugin loads', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ basePath: 'svc' }, '"basePath" must be a URL path starting with "/" of letters, digits, "-", ".", "_", "~", "%" and "/" (such as "/svc"); got "svc".'],
    [{ basePath: '/svc/:id' }, 'got "/svc/:id"'],
    [{ basePath: '/s v' }, 'got "/s v"'],
    [{ basePath: '/svc?x' }, 'got "/svc?x"'],
    [{ basePath: '/<svc>' }, 'got "/<svc>"'],
    [{ basePath: 5 }, 'got 5'],
    [{ invoke: 'yes' }, '"invoke" must be true, false or { maxSteps?, maxResultBytes?, timeout? }; got "yes".'],
    [{ invoke: null }, '"invoke" must be true, false or { maxSteps?, maxResultBytes?, timeout? }; got null.'],
    [{ invoke: { steps: 3 } }, '"invoke.steps" must be absent (invoke takes maxSteps, maxResultBytes and timeout); got 3.'],
    [{ invoke: { maxSteps: 0 } }, '"invoke.maxSteps" must be a whole number of 1 or more; got 0.'],
    [{ invoke: { maxSteps: 2.5 } }, '"invoke.maxSteps" must be a whole number of 1 or more; got 2.5.'],
    [{ invoke: { maxSteps: '4' } }, '"invoke.maxSteps" must be a whole number of 1 or more; got "4".'],
    [{ invoke: { maxResultBytes: 0 } }, '"invoke.maxResultBytes" must be a whole number of bytes, 1 or more; got 0.'],
    [{ invoke: { maxResultBytes: '1mb' } }, '"invoke.maxResultBytes" must be a whole number of bytes, 1 or more; got "1mb".'],
    [{ invoke: { timeout: -1 } }, '"invoke.timeout" must be a whole number of milliseconds, 0 (no deadline) to 2147483647; got -1.'],
    [{ invoke: { timeout: 2 ** 31 } }, 'got 2147483648']
  ]
  for (const [options, message] of cases) {
    const app = Fastify()
    const error = await app.register(svcManifest, { ...requiredOptions, ...options }).then(() => undefined, (error: Error) => error)
    t.type(error, FST_SVC_INVALID_OPTION, JSON.stringify(options))
    t.match(error?.message, message)
  }
})
