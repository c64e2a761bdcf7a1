import { request as httpRequest } from 'node:http'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'

// The Host check of a loopback connection parsed the header as a URL on every request (and asked the
// socket for its local address each time): some 4 µs of each execute call. Accepted Host values are now
// remembered, up to a bound, and a connection's address once. The answers must not change: a value is
// accepted or refused on its own, whatever came before it, and however many distinct values came.

function execute (port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/svc/execute', agent: false, headers: { host, 'content-type': 'application/json' } }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode as number))
    })
    request.on('error', reject)
    request.end(JSON.stringify({ command: 'ping' }))
  })
}

t.test('more distinct accepted Host values than are remembered: each is still accepted, a rebound name still refused', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, requiredOptions)
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  const origin = await listening(t, app)
  const port = Number(new URL(origin).port)

  const statuses: number[] = []
  for (let index = 1; index <= 100; index++) statuses.push(await execute(port, `localhost:${index}`))
  t.same(new Set(statuses), new Set([200]), 'localhost on any port, 100 distinct values')
  t.equal(await execute(port, 'localhost:1'), 200, 'a remembered value')
  t.equal(await execute(port, 'localhost:100'), 200, 'a value past the bound, parsed again')
  t.equal(await execute(port, 'evil.example'), 403, 'a rebound name')
  t.equal(await execute(port, 'evil.example'), 403, 'and again: a refusal is never remembered as an acceptance')
  t.equal(await execute(port, 'shop.example'), 200, "baseUrl's host")
  t.equal(await execute(port, 'localhost:1/path'), 403, 'a value with a path')
})
