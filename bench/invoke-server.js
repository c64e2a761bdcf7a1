// The invocation benchmark's server, run as a child process (`fork`) so that the load generator in the
// parent does not share its event loop. One app: a command route with path and query params validated
// by its schemas, and the plugin's execute and pipeline endpoints in front of it. Beside them, the design's
// ceiling: a POST of execute's body to a route that answers execute's envelope at once (a prebuilt string),
// which is what an execute call would cost if calling the command's route cost nothing.
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addProductsRoute, manifestOptions } from './routes.js'

const app = Fastify()
await app.register(svcManifest, manifestOptions)
addProductsRoute(app)
const ceiling = { envelope: '' }
app.post('/bench/outer', (request, reply) => { reply.type('application/json').send(ceiling.envelope) })
await app.listen({ host: '127.0.0.1', port: 0 })
ceiling.envelope = (await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'products.find', params: { shelf: 'kitchen', q: 'te', limit: 3 } } })).body

process.on('message', async (message) => {
  if (message.type === 'inject') {
    process.send({ type: 'inject', micros: await injectCpu(message.url, message.count) })
  } else if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send({ type: 'cpu', micros: user + system })
  } else if (message.type === 'close') {
    await app.close()
    process.exit(0)
  }
})
process.send({ type: 'listening', port: app.server.address().port })

/** CPU microseconds per `app.inject()` of `url`, one after another, in the callback form dispatch uses. */
async function injectCpu (url, count) {
  const options = { method: 'GET', url, validate: false }
  const once = () => new Promise((resolve, reject) => app.inject(options, (error, response) => error ? reject(error) : resolve(response)))
  for (let index = 0; index < 500; index++) await once()
  const before = process.cpuUsage()
  for (let index = 0; index < count; index++) await once()
  const { user, system } = process.cpuUsage(before)
  return (user + system) / count
}
