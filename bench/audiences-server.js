// The audiences benchmark's server, run as a child process (`fork`) so that autocannon in the parent does
// not share its event loop. One app of 50 commands, 5 of them hidden (`auth: 'hidden'`, scope `admin`), and
// beside the manifest two baselines: a route that sends the public manifest's bytes and headers from a
// prebuilt Buffer, and one that runs the same verifier on the same token and then sends the admin view's
// bytes the same way (what a credentialed manifest request costs at least).
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, BASELINE_PATH, MANIFEST_PATH, manifestOptions, stubCompilers } from './routes.js'

const HIDDEN = 5
const VERIFIED_PATH = '/.well-known/verified.json'
const ADMIN_TOKEN = 'admin-token'

// A verifier of negligible cost: the comparison is of what the plugin adds around it.
const TOKENS = new Map([[ADMIN_TOKEN, { sub: 'admin', scope: 'admin' }]])
const verify = (token) => TOKENS.get(token)

const app = Fastify()
stubCompilers(app)
await app.register(svcManifest, { ...manifestOptions, auth: { type: 'bearer', description: 'Bench tokens', verify } })
addCommandRoutes(app, 50 - HIDDEN)
for (let i = 0; i < HIDDEN; i++) {
  app.get(`/admin/report${i}`, { svc: { name: `admin.report${i}`, description: `Admin report ${i}`, auth: 'hidden', scopes: ['admin'] } }, async () => ({ ok: true }))
}

const baselines = { public: undefined, verified: undefined }
app.get(BASELINE_PATH, function servePublicBaseline (request, reply) {
  return reply.headers(baselines.public.headers).send(baselines.public.body)
})
app.get(VERIFIED_PATH, function serveVerifiedBaseline (request, reply) {
  const authorization = request.headers.authorization
  const credential = typeof authorization === 'string' && authorization.startsWith('Bearer ') ? verify(authorization.slice(7)) : undefined
  if (credential === undefined) return reply.code(401).send()
  return reply.headers(baselines.verified.headers).send(baselines.verified.body)
})

await app.ready()
baselines.public = await served({})
baselines.verified = await served({ authorization: `Bearer ${ADMIN_TOKEN}` })
await app.listen({ host: '127.0.0.1', port: 0 })

process.on('message', async (message) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send({ type: 'cpu', micros: user + system })
  } else if (message.type === 'close') {
    await app.close()
    process.exit(0)
  }
})
process.send({
  type: 'listening',
  port: app.server.address().port,
  verifiedPath: VERIFIED_PATH,
  authorization: `Bearer ${ADMIN_TOKEN}`,
  publicCommands: JSON.parse(baselines.public.body).commands,
  adminCommands: JSON.parse(baselines.verified.body).commands
})

/** The manifest's body and headers as a caller with these headers gets them (those Fastify adds itself left out). */
async function served (headers) {
  const response = await app.inject({ method: 'GET', url: MANIFEST_PATH, headers })
  if (response.statusCode !== 200) throw new Error(`the manifest answered ${response.statusCode}`)
  const { 'content-length': _length, date: _date, connection: _connection, 'keep-alive': _keepAlive, ...kept } = response.headers
  return { body: Buffer.from(response.rawPayload), headers: kept }
}
