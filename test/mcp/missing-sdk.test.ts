import { register } from 'node:module'
import Fastify from 'fastify'
import t from 'tap'
import { main } from '../../lib/cli/main.js'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

// From here on @modelcontextprotocol/server cannot be resolved, as in an app that did not install it. Nothing
// above imports it: the plugin and the CLI load it only when MCP is asked for.
register('../fixtures/mcp/without-sdk.mjs', import.meta.url)

const install = 'Run: npm install @modelcontextprotocol/server'

t.test('mcp: true without the SDK: register() rejects, naming the package and the install command', async (t) => {
  const app = Fastify()
  const error = await app.register(svcManifest, { ...requiredOptions, mcp: true }).then(() => undefined, (error: Error) => error)
  t.match(error, {
    code: 'FST_SVC_MISSING_DEPENDENCY',
    message: /^Missing dependency: The option "mcp" needs the package "@modelcontextprotocol\/server", which is not installed\. Run: npm install @modelcontextprotocol\/server$/
  })
  t.match((error as Error).cause, { message: /Cannot find package/ }, 'the reason is kept as the cause')
})

t.test('without mcp the SDK is never needed', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions })
  app.get('/ping', { svc: { description: 'Pong' } }, async () => 'pong')
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject('/.well-known/svc.json')).statusCode, 200)
  t.same((await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'ping' } })).json(), { ok: true, result: 'pong' })
})

t.test('svc-manifest mcp without the SDK: exit 2, the install command on stderr, nothing on stdout', async (t) => {
  let stdout = ''
  let stderr = ''
  const code = await main(['mcp', 'http://127.0.0.1:9/'], { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text } })
  t.equal(code, 2)
  t.equal(stdout, '')
  t.match(stderr, /^svc-manifest: Missing dependency: The mcp command needs the package "@modelcontextprotocol\/server", which is not installed\. Run: npm install @modelcontextprotocol\/server\n$/)
  t.ok(stderr.includes(install))
})
