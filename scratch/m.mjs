import Fastify from 'fastify'
import svc from '../dist/index.js'
const base = { name: 'S', description: 'D', version: '1', baseUrl: 'http://x' }
async function msg (opts, routes) {
  const app = Fastify()
  try { await app.register(svc, { ...base, ...opts }); routes?.(app); await app.ready(); return 'OK' } catch (e) { return e.message }
}
console.log(await msg({ colour: 'red' }))
console.log(await msg({ types: { string: { type: 'string' } } }))
console.log(await msg({ types: { constructor: { type: 'string' } } }))
console.log(await msg({ types: { T: { type: 'object', properties: JSON.parse('{"__proto__":{"type":"string"}}') } } }))
console.log(await msg({}, (app) => app.get('/a', { svc: {} }, () => 1)))
console.log(await msg({}, (app) => { app.get('/cart', { svc: { description: 'A' } }, () => 1); app.post('/cart', { svc: { description: 'B' } }, () => 1); app.get('/a', { svc: { name: 'x', description: 'A' } }, () => 1); app.get('/b', { svc: { name: 'x', description: 'B' } }, () => 1) }))
console.log(await msg({}, (app) => app.get('/a', { svc: { description: 'A', returns: { enum: [10n] } } }, () => 1)))
console.log(await msg({}, (app) => app.post('/a', { svc: { description: 'A', params: { type: 'object', properties: { a: null } } } }, () => 1)))
let deep = { type: 'string' }; for (let i = 0; i < 3000; i++) deep = { type: 'object', properties: { a: deep } }
console.log((await msg({ types: { Deep: deep } })).slice(0, 300))
console.log(await msg({}, (app) => app.get('/a', { svc: { description: 'A', params: { type: 'object', properties: { a: { type: 'object', default: { f () {} } } } } } }, () => 1)))
console.log(await msg({}, (app) => app.put('/carts/:id', { svc: { description: 'A', params: { type: 'object', properties: { id: { type: 'string' } } } } }, () => 1)))
{
  const app = Fastify()
  app.get('/admin', { svc: { description: 'A', auth: 'required' } }, () => 1)
  try { await app.register(svc, { ...base, unseenRoutes: 'error' }); await app.ready() } catch (e) { console.log(e.message) }
}
console.log(await msg({ maxAge: 10n }))
console.log(await msg({}, (app) => app.get('/a', { svc: { description: 'A', hints: { idempotent: 10n } } }, () => 1)))
