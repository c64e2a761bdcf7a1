import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { main } from '../../lib/cli/main.js'
import { root } from '../helpers/cli.js'
import { closedPort } from '../helpers/net.js'
import { until } from '../helpers/sse.js'
import { streamServer, type StreamContent, type StreamServer } from '../helpers/stream-routes.js'

// `svc-manifest call … --stream` (docs/cli.md): one JSON line per piece as it arrives, then {"result":…};
// exit 1 for a refusal or an error frame, 2 for usage and network errors, 130 when Ctrl-C cancels the call.

/** The last NDJSON line has an escape a terminal would act on. */
const content: StreamContent = {
  lines: ['{"n":1}\n', '{"n":2}\n"three \\u001b[2J"\n'],
  sse: ['data: {"step":1}\n\nevent: result\ndata: {"total":1}\n\n'],
  binary: [Buffer.from([0xff, 0xfe])]
}

/** Every connection closed on close: see test/client/streams.test.ts about fetch's spare connection. */
async function setup (t: Test): Promise<StreamServer> {
  return await streamServer(t, content, {}, { forceCloseConnections: true })
}

interface Running {
  stdout: () => string
  stderr: () => string
  lines: () => unknown[]
  done: Promise<number>
}

/** Runs `svc-manifest <args>` in-process; `signal`, when given, is the caller's. */
function run (args: string[], signal?: AbortSignal): Running {
  let stdout = ''
  let stderr = ''
  const done = main(args, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text } }, signal)
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)),
    done
  }
}

t.test('one JSON line per piece as it arrives, then the result when it is not null', async (t) => {
  const { origin, log } = await setup(t)
  const lines = run(['call', origin, 'lines', '--stream'])
  // The first line is printed before the route writes the second piece.
  await until(() => lines.lines().length === 1, 'the first piece')
  t.same(lines.lines(), [{ n: 1 }])
  log.more!()
  t.equal(await lines.done, 0)
  t.equal(lines.stdout(), '{"n":1}\n{"n":2}\n"three \\u001b[2J"\n', 'NDJSON has no final result: no last line; a piece is one line, escapes kept')
  t.equal(lines.stderr(), '')

  const sse = run(['call', origin, 'sse', '--stream'])
  t.equal(await sse.done, 0)
  t.same(sse.lines(), [{ step: 1 }, { result: { total: 1 } }])

  const search = run(['call', origin, 'search', 'q=007', 'limit=2', '--stream'])
  t.equal(await search.done, 0)
  t.same(search.lines(), [{ result: { q: '007', limit: 2 } }], 'params typed as the manifest declares them; a command without pieces gives its result')

  const binary = run(['call', origin, 'binary', '--stream'])
  t.equal(await binary.done, 0)
  t.same(binary.lines(), [{ encoding: 'base64', data: '//4=' }])
  const logo = run(['call', origin, 'logo', '--stream'])
  t.equal(await logo.done, 0)
  t.same(logo.lines(), [{ result: { encoding: 'base64', contentType: 'image/png', result: 'iVA=' } }])
})

t.test('a refusal or an error frame is exit 1; a network error exit 2; one line on stderr', async (t) => {
  const { origin } = await setup(t)
  const refused = run(['call', origin, 'locked', '--stream'])
  t.equal(await refused.done, 1)
  t.equal(refused.stderr(), 'svc-manifest: locked failed: UNAUTHORIZED (401): no\n')
  t.equal(refused.stdout(), '')

  const broken = run(['call', origin, 'breaks', '--stream'])
  t.equal(await broken.done, 1)
  t.same(broken.lines(), [{ n: 1 }], 'the pieces before the failure are printed')
  t.match(broken.stderr(), /^svc-manifest: breaks failed: INTERNAL_ERROR \(502\): [^\n]+\n$/)

  const unknown = run(['call', origin, 'nope', '--stream'])
  t.equal(await unknown.done, 1)
  t.match(unknown.stderr(), /^svc-manifest: nope failed: UNKNOWN_COMMAND \(404\)/)

  const away = run(['call', `http://127.0.0.1:${await closedPort()}`, 'lines', '--stream'])
  t.equal(await away.done, 2)
  t.match(away.stderr(), /^svc-manifest: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/svc\.json failed: .*ECONNREFUSED[^\n]*\n$/)

  const usage = run(['call', origin, 'lines', 'q', '--stream'])
  t.equal(await usage.done, 2)
  t.match(usage.stderr(), '"q" is not name=value')

  const help = run(['call', '--help'])
  t.equal(await help.done, 0)
  t.match(help.stdout(), /--stream {14}Ask for a streamed execute/)
})

t.test('the caller\'s signal cancels the call on the server: exit 130', async (t) => {
  const { origin, log } = await setup(t)
  const controller = new AbortController()
  const waiting = run(['call', origin, 'wait', '--stream'], controller.signal)
  await until(() => log.started.includes('wait'), 'the route to start')
  controller.abort()
  t.equal(await waiting.done, 130)
  t.equal(waiting.stderr(), '')
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  t.match(log.aborted.wait, { message: /went away/ })
})

t.test('without a signal of its caller, Ctrl-C (SIGINT) exits 130 and SIGTERM 143, and the handlers go', async (t) => {
  const { origin, log } = await setup(t)
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }
    log.started.length = 0
    delete log.aborted.wait
    const waiting = run(['call', origin, 'wait', '--stream'])
    await until(() => log.started.includes('wait'), 'the route to start')
    // What the process does on the signal, without signalling this test's own process.
    const [handler] = process.listeners(signal).filter((listener) => !before[signal].includes(listener))
    ;(handler as (name: string) => void)(signal)
    t.equal(await waiting.done, code, signal)
    await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
    t.same(process.listeners('SIGINT'), before.SIGINT, 'both handlers are gone')
    t.same(process.listeners('SIGTERM'), before.SIGTERM)
  }
  const before = process.listeners('SIGINT')
  t.equal(await run(['call', origin, 'locked', '--stream']).done, 1)
  t.same(process.listeners('SIGINT'), before, 'a call that failed leaves no handler either')
})

t.test('the built CLI: Ctrl-C cancels the call on the server and exits 130', async (t) => {
  const { origin, log } = await setup(t)
  const child = spawn(process.execPath, ['dist/cli/bin.js', 'call', origin, 'wait', '--stream'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = once(child, 'exit')
  await until(() => log.started.includes('wait'), 'the route to start')
  child.kill('SIGINT')
  const [code] = await exited
  t.equal(code, 130)
  t.equal(stderr, '')
  await until(() => log.aborted.wait !== undefined, 'the route\'s signal')
  t.match(log.aborted.wait, { message: /went away/ })
})
