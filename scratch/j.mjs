import Fastify from 'fastify'
import svc from '../dist/index.js'
const t0 = performance.now()
let n = 0
while (performance.now() - t0 < 3000) {
  const app = Fastify(); app.setValidatorCompiler(() => () => true); app.setSerializerCompiler(() => JSON.stringify)
  await app.register(svc, { name: 'S', description: 'D', version: '1', baseUrl: 'http://x', types: { T: { type: 'object', properties: { a: { type: 'string' } } } } })
  app.post('/a/:id', { svc: { description: 'A', params: { type: 'object', properties: { x: { type: 'string', default: 'q' }, y: { $ref: 'T' } } } } }, async () => 1)
  app.get('/b', { schema: { querystring: { type: 'object', properties: { q: { type: 'number' } } } }, svc: { description: 'B' } }, async () => 1)
  await app.ready()
  await app.inject('/.well-known/svc.json')
  n++
}
console.log(n, 'apps in 3 s →', (3000 / n).toFixed(2), 'ms each')
