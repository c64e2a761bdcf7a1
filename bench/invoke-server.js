// The invocation benchmark's server, run as a child process (`fork`) so that the load generator in the
// parent does not share its event loop. One app: a command route with path and query params validated
// by its schemas, and the plugin's execute and pipeline endpoints in front of it.
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { manifestOptions } from './routes.js'

const PRODUCTS = [
  { sku: 'kettle', name: 'Electric kettle', price: 24 },
  { sku: 'mug', name: 'Tea mug', price: 8 },
  { sku: 'tea-black', name: 'Black tea', price: 3.9 }
]

const app = Fastify()
await app.register(svcManifest, manifestOptions)
app.get('/shelves/:shelf/products', {
  schema: {
    params: { type: 'object', properties: { shelf: { type: 'string' } }, required: ['shelf'] },
    querystring: {
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 } },
      required: ['q']
    },
    response: {
      200: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' }, name: { type: 'string' }, price: { type: 'number' } } }
      }
    }
  },
  svc: { name: 'products.find', description: 'Products of a shelf whose name contains q' }
}, async (request) => {
  const needle = request.query.q.toLowerCase()
  return PRODUCTS.filter((product) => product.name.toLowerCase().includes(needle)).slice(0, request.query.limit)
})
await app.listen({ host: '127.0.0.1', port: 0 })

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
