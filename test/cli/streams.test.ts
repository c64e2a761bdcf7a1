import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { main } from '../../lib/cli/main.js'
import { requiredOptions } from '../helpers/app.js'
import { freePort } from '../helpers/redis.js'
import { tokenAuth } from '../helpers/auth.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
async function shop (t: Test): Promise<{ app: FastifyInstance, url: string }> {
  // Every connection closed on close: see test/client/streams.test.ts about fetch's spare connection.
  const app = Fastify({ forceCloseConnections: true })
  await app.register(svcManifest, {
    ...requiredOptions,
    svc: '0.5.0',
    auth: tokenAuth,
    events: { 'cart.updated': { description: 'Cart changed' }, news: { description: 'News' } },
    channels: { cart: { description: 'Cart state' } }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/.well-known/svc.json` }
}

interface Running {
  lines: () => unknown[]
  stderr: () => string
  stop: () => void
  done: Promise<number>
}

/** Runs `svc-manifest <args>` in-process until `stop()`. */
function run (...args: string[]): Running {
  let stdout = ''
  let stderr = ''
  const controller = new AbortController()
  const done = main(args, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text } }, controller.signal)
  return {
    lines: () => stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)),
    stderr: () => stderr,
    stop: () => controller.abort(),
    done
  }
}

async function until (condition: () => boolean, what: string, act: () => void = () => {}): Promise<void> {
  const deadline = Date.now() + 3000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    act()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('events: one JSON line per event, as the token allows, until interrupted', async (t) => {
  const { app, url } = await shop(t)
  const events = run('events', url, '--token', 'alice-token', '--events', 'cart.updated, news')
  // Probes until the subscription is in place.
  await until(() => events.lines().length > 0, 'the subscription', () => app.svc.emit('news', { probe: true }))
  const before = events.lines().length
  app.svc.emit('cart.updated', { items: ['mug'] }, { to: 'alice' })
  app.svc.emit('cart.updated', { items: ['tea'] }, { to: 'bob' })
  await until(() => events.lines().length > before, 'the event')
  const line = events.lines()[before] as { id: string, event: string, data: unknown }
  t.same({ event: line.event, data: line.data }, { event: 'cart.updated', data: { items: ['mug'] } })
  t.match(line.id, /^\d+$/)
  events.stop()
  t.equal(await events.done, 0)
  t.equal(events.stderr(), '')
})

t.test('without a signal of its caller, events ends on Ctrl-C (SIGINT) or SIGTERM, exit 0', async (t) => {
  const { app, url } = await shop(t)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }
    let stdout = ''
    const done = main(['events', url, '--token', 'alice-token'], { stdout: (text) => { stdout += text }, stderr: () => {} })
    await until(() => stdout !== '', 'the subscription', () => app.svc.emit('news', { probe: true }))
    // What the process does on the signal, without signalling this test's own process.
    const [handler] = process.listeners(signal).filter((listener) => !before[signal].includes(listener))
    ;(handler as () => void)()
    t.equal(await done, 0, signal)
    t.same(process.listeners('SIGINT'), before.SIGINT, 'both handlers are gone')
    t.same(process.listeners('SIGTERM'), before.SIGTERM)
  }
})

t.test('watch: the latest state, then each new one', async (t) => {
  const { app, url } = await shop(t)
  await app.svc.publish('cart', 'alice', { items: [] })
  const watching = run('watch', new URL(url).origin, 'cart', 'alice', '--token', 'alice-token')
  await until(() => watching.lines().length === 1, 'the first state')
  await app.svc.publish('cart', 'alice', { items: ['mug'] })
  await until(() => watching.lines().length === 2, 'the second state')
  t.same(watching.lines(), [{ version: 1, state: { items: [] } }, { version: 2, state: { items: ['mug'] } }])
  watching.stop()
  t.equal(await watching.done, 0)
})

t.test('refusals exit 1, network errors and usage errors exit 2, with one line on stderr', async (t) => {
  const { url } = await shop(t)
  const cases: Array<[string[], number, RegExp]> = [
    [['events', url], 1, /^svc-manifest: GET http:\/\/127.0.0.1:\d+\/svc\/events answered 401: Missing bearer credential/],
    [['events', url, '--token', 'alice-token', '--events', 'gone'], 1, /answered 400: Unknown event "gone" in \?events/],
    [['watch', url, 'cart', 'bob', '--token', 'alice-token'], 1, /answered 403: Not allowed to watch channel "cart" key "bob"/],
    [['events', `http://127.0.0.1:${await freePort()}/.well-known/svc.json`], 2, /^svc-manifest: GET http:\/\/127.0.0.1:\d+\/.well-known\/svc.json failed: .*ECONNREFUSED/],
    [['events', 'shop.json'], 2, /^svc-manifest: events takes the http\(s\) URL of a manifest or a service; got "shop.json". Run svc-manifest events --help.$/m],
    [['watch', url, 'cart'], 2, /^svc-manifest: watch takes <url> <channel> <key>/]
  ]
  for (const [args, code, message] of cases) {
    const failing = run(...args)
    t.equal(await failing.done, code, args.join(' '))
    t.match(failing.stderr(), message)
    t.equal(failing.stderr().split('\n').length, 2, 'one line')
  }
  const help = run('watch', '--help')
  t.equal(await help.done, 0)
})

t.test('the built CLI streams until Ctrl-C, then exits 0', async (t) => {
  const { app, url } = await shop(t)
  const child = spawn(process.execPath, ['dist/cli/bin.js', 'events', url, '--token', 'alice-token'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  await until(() => stdout.includes('\n'), 'the first line', () => app.svc.emit('news', { probe: true }))
  t.match(JSON.parse(stdout.split('\n')[0]), { event: 'news', data: { probe: true } })
  child.kill('SIGINT')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
})
