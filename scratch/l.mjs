import Fastify from 'fastify'
import svc from '../dist/index.js'
for (const [label, prop] of [['NaN default', { type: 'number', default: NaN }], ['Infinity const', { const: Infinity }], ['lone surrogate default', { type: 'string', default: '\uD800' }], ['enum NaN', { enum: [NaN, 1] }], ['proto default', { type: 'object', default: JSON.parse('{"__proto__":{"a":1}}') }], ['empty prop name', {type:'string'}]]) {
  const app = Fastify()
  await app.register(svc, { name: 'S', description: 'D', version: '1', baseUrl: 'http://x' })
  app.post('/a', { svc: { description: 'A', params: { type: 'object', properties: label === 'empty prop name' ? { '': prop } : { p: prop } } } }, async (r) => r.body)
  try { await app.ready(); const r = await app.inject({ method: 'POST', url: '/a', payload: {} }); console.log(label, 'OK', r.statusCode, r.body) } catch (e) { console.log(label, 'ERR', e.code, e.message.slice(0, 200)) }
}
