import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import svcManifest from '../../lib/index.js'
import { main } from '../../lib/cli/main.js'
import { requiredOptions } from '../helpers/app.js'
import { closedPort, listening } from '../helpers/net.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** The built CLI as a user runs it: `node dist/cli/bin.js call …`. */
function spawned (...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli/bin.js', ...args], { cwd: root }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

/** The same main, in this process. */
async function cli (...args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await main(args, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text } })
  return { code, stdout, stderr }
}

/** The built CLI spawned, and the same main in this process: both give the same, and the first is returned. */
async function spawnedAndInProcess (t: Test, ...args: string[]): Promise<Run> {
  const run = await spawned(...args)
  t.same(await cli(...args), run, 'the same in-process')
  return run
}

t.test('call against the shop, spawned as a user runs it (and in-process, the same)', async (t) => {
  const origin = await listening(t, await buildShop())
  const manifest = `${origin}/.well-known/svc.json`

  const search = await spawnedAndInProcess(t, 'call', manifest, 'search', 'q=kettle')
  t.equal(search.code, 0, search.stderr)
  t.same(JSON.parse(search.stdout), [{ sku: 'kettle', name: 'Electric kettle', price: 24 }])
  t.equal(search.stderr, '')

  const added = await spawned('call', origin, 'cart.add', 'sku=mug', 'quantity=2', '--token', DEMO_TOKEN)
  t.equal(added.code, 0, 'the origin alone finds the manifest at /.well-known/svc.json')
  t.same(JSON.parse(added.stdout), { items: [{ sku: 'mug', quantity: 2 }], total: 16 })

  const anonymous = await spawnedAndInProcess(t, 'call', manifest, 'cart.get')
  t.equal(anonymous.code, 1, 'a failed command is exit 1')
  t.equal(anonymous.stdout, '')
  t.equal(anonymous.stderr, 'svc-manifest: cart.get failed: UNAUTHORIZED (401, FST_SVC_UNAUTHORIZED): Missing bearer credential. Send "Authorization: Bearer <token>".\n')

  const invalid = await spawnedAndInProcess(t, 'call', manifest, 'search', '--params', '{"q":"tea","limit":0}')
  t.equal(invalid.code, 1)
  t.match(invalid.stderr, /^svc-manifest: search failed: INVALID_PARAMS \(400, FST_ERR_VALIDATION\): querystring\/limit must be >= 1\n$/)

  const unknown = await spawnedAndInProcess(t, 'call', manifest, 'cart.checkout')
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, 'cart.checkout failed: UNKNOWN_COMMAND (404): Unknown command "cart.checkout".')
})

t.test('name=value follows the manifest\'s param types; --params gives JSON; pairs override it', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.post('/echo', {
    svc: {
      description: 'Echoes its params',
      params: Type.Object({ text: Type.Optional(Type.String()), count: Type.Optional(Type.Number()), flags: Type.Optional(Type.Array(Type.String())), on: Type.Optional(Type.Boolean()) })
    }
  }, async (request) => request.body)
  app.get('/logo', { svc: { description: 'Binary' } }, async (request, reply) => reply.type('image/png').send(Buffer.from([1, 2, 3])))
  app.get('/fail', { svc: { description: 'Fails with a nasty message' } }, async (request, reply) => reply.code(409).send({ message: 'clash \u001b[31mred\u001b[0m \u009b' }))
  const origin = await listening(t, app)

  const typed = await cli('call', origin, 'echo', 'text=42', 'count=42', 'flags=["a","b"]', 'on=true', 'extra=null', 'word=plain', 'empty=')
  t.equal(typed.code, 0, typed.stderr)
  t.same(JSON.parse(typed.stdout), { text: '42', count: 42, flags: ['a', 'b'], on: true, extra: null, word: 'plain', empty: '' })
  t.equal(typed.stdout, `${JSON.stringify({ text: '42', count: 42, flags: ['a', 'b'], on: true, extra: null, word: 'plain', empty: '' }, null, 2)}\n`, 'pretty JSON')

  const merged = await cli('call', origin, 'echo', '--params', '{"text":"from json","count":1}', 'count=2', 'text=a=b')
  t.same(JSON.parse(merged.stdout), { text: 'a=b', count: 2 })

  const logo = await cli('call', origin, 'logo')
  t.same(JSON.parse(logo.stdout), { encoding: 'base64', contentType: 'image/png', result: 'AQID' })

  const nasty = await cli('call', origin, 'fail')
  t.equal(nasty.code, 1)
  t.equal(nasty.stderr, 'svc-manifest: fail failed: CONFLICT (409): clash \\u001b[31mred\\u001b[0m \\u009b\n', 'control characters are shown, not obeyed')
})

t.test('usage, network and manifest errors are exit 2', async (t) => {
  const origin = await listening(t, await buildShop())
  const cases: Array<[string[], string | RegExp]> = [
    [['call'], 'svc-manifest: call takes <url> <command> …. Run svc-manifest call --help.'],
    [['call', origin], 'call takes <url> <command> …'],
    [['call', 'shop.example', 'search'], 'svc-manifest: call takes the http(s) URL of a manifest or a service; got "shop.example". Run svc-manifest call --help.'],
    [['call', origin, 'search', 'q'], 'svc-manifest: "q" is not name=value. Run svc-manifest call --help.'],
    [['call', origin, 'search', '=tea'], '"=tea" is not name=value'],
    [['call', origin, 'search', '--params', '{q'], /^svc-manifest: --params is not JSON: .*\. Run svc-manifest call --help\.$/m],
    [['call', origin, 'search', '--params', '["tea"]'], 'svc-manifest: --params must be a JSON object such as \'{"q":"tea"}\'. Run svc-manifest call --help.'],
    [['call', origin, 'search', '--params', 'null'], '--params must be a JSON object'],
    [['call', origin, 'search', '--token'], /--token/],
    [['call', `${origin}/nothing-here.json`, 'search'], /answered 404, expected 200 or 304/]
  ]
  for (const [args, message] of cases) {
    const run = await cli(...args)
    t.equal(run.code, 2, args.join(' '))
    t.match(run.stderr, /^svc-manifest: [^\n]+\n$/)
    t.match(run.stderr, message)
    t.equal(run.stdout, '')
  }
  const port = await closedPort()
  const refused = await cli('call', `http://127.0.0.1:${port}`, 'search')
  t.equal(refused.code, 2)
  t.match(refused.stderr, /^svc-manifest: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/svc\.json failed: .*ECONNREFUSED/)

  const off = Fastify()
  await off.register(svcManifest, { ...requiredOptions, invoke: false })
  off.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  const offOrigin = await listening(t, off)
  const noEndpoint = await cli('call', offOrigin, 'ping')
  t.equal(noEndpoint.code, 2, 'no execute endpoint is not a failed command')
  t.match(noEndpoint.stderr, /answered 404 without an envelope/)
})

t.test('call --help', async (t) => {
  const help = await cli('call', '--help')
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: svc-manifest call <url> <command> \[name=value \.\.\.\] \[--params JSON\] \[--token T\]/)
  t.same(await cli('help', 'call'), help)
  t.match((await cli('--help')).stdout, 'call <url> <command> [name=value ...] [--params JSON] [--token T]')
})
