import Fastify from 'fastify'
import svc from '../dist/index.js'
for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
  const app = Fastify()
  const types = {}
  Object.defineProperty(types, name, { value: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, enumerable: true })
  try {
    await app.register(svc, { name: 'S', description: 'D', version: '1', baseUrl: 'http://x', types })
    app.post('/a', { svc: { description: 'A', params: { type: 'object', properties: { t: { $ref: name } } } } }, async (r) => r.body)
    await app.ready()
    const r1 = await app.inject({ method: 'POST', url: '/a', payload: { t: {} } })
    const r2 = await app.inject({ method: 'POST', url: '/a', payload: { t: { a: 'x' } } })
    console.log(name, r1.statusCode, r2.statusCode, app.svc.manifest.commands.a.params.t)
  } catch (e) { console.log(name, 'ERR', e.code, e.message.slice(0, 200)) }
}
