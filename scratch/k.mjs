import Fastify from 'fastify'
const t0 = performance.now()
let n = 0
while (performance.now() - t0 < 3000) {
  const app = Fastify()
  app.get('/b', async () => 1)
  await app.ready()
  await app.inject('/b')
  n++
}
console.log('bare fastify', n, 'apps in 3 s →', (3000 / n).toFixed(2), 'ms each')
