// The throughput server, run as a child process (`fork`) so that autocannon in the parent does not share
// its event loop. It serves the manifest of `count` commands and, in the same app, a baseline route that
// answers with the same bytes and headers from a prebuilt Buffer. Messages from the parent switch the
// per-request profiles on and off (see profile.js).
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, BASELINE_PATH, MANIFEST_PATH, manifestOptions, stubCompilers } from './routes.js'
import { HandlerProfiler } from './profile.js'

const count = Number(process.argv[2])
const app = Fastify()
stubCompilers(app)
await app.register(svcManifest, manifestOptions)
addCommandRoutes(app, count)

const baseline = { body: Buffer.alloc(0), etag: '', headers: {}, notModifiedHeaders: {} }
// The least a conditional GET can do: one string comparison, then a prebuilt 304 or 200.
app.get(BASELINE_PATH, function serveBaseline (request, reply) {
  if (request.headers['if-none-match'] === baseline.etag) {
    return reply.code(304).headers(baseline.notModifiedHeaders).send()
  }
  return reply.headers(baseline.headers).send(baseline.body)
})

await app.ready()
const served = await app.inject({ method: 'GET', url: MANIFEST_PATH })
// The same headers as the manifest's 200 and 304 (its Link header included), but those Fastify adds itself.
const { etag, 'cache-control': cacheControl, 'content-type': contentType, link } = served.headers
Object.assign(baseline, {
  body: Buffer.from(served.rawPayload),
  etag,
  headers: { 'content-type': contentType, etag, 'cache-control': cacheControl, link },
  notModifiedHeaders: { etag, 'cache-control': cacheControl, link }
})

await app.listen({ host: '127.0.0.1', port: 0 })
const profiler = new HandlerProfiler({ manifest: 'serveManifest', baseline: 'serveBaseline' })
process.on('message', async (message) => {
  if (message.type === 'profile-start') {
    await profiler.start()
    process.send({ type: 'profile-started' })
  } else if (message.type === 'profile-stop') {
    process.send({ type: 'profile', profile: await profiler.stop() })
  } else if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send({ type: 'cpu', micros: user + system })
  } else if (message.type === 'close') {
    await app.close()
    process.exit(0)
  }
})
process.send({ type: 'listening', port: app.server.address().port, etag, bytes: baseline.body.length })
