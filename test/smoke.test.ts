import t from 'tap'
import Fastify from 'fastify'
import svcManifest from '../lib/index.js'

t.test('serves the manifest', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { name: 'S', description: 'd', version: '1', baseUrl: 'https://s.example' })
  app.get('/a', { svc: { description: 'x' } }, async () => 1)
  await app.ready()
  const res = await app.inject('/.well-known/svc.json')
  t.equal(res.statusCode, 200)
  t.same(Object.keys(res.json().commands), ['a'])
})
