import Fastify from 'fastify'
import svc from '../dist/index.js'
const app = Fastify()
app.register(svc, { name: 'S', description: 'D', version: '1', baseUrl: 'http://x' })
app.after(() => app.get('/a', { schema: { response: { 200: { enum: [10n] } } }, svc: { description: 'A' } }, async () => ({})))
await app.ready().catch(e => console.log(e.code, e.message))
const app2 = Fastify()
app2.register(svc, { name: 'S', description: 'D', version: '1', baseUrl: 'http://x' })
app2.after(() => app2.get('/a', { schema: { response: { 200: { type: 'object', properties: { a: { const: () => 1 } } } } }, svc: { description: 'A', returns: { type: 'object' } } }, async () => ({})))
await app2.ready().catch(e => console.log(e.code, e.message))
