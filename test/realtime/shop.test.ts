import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { buildShop, DEMO_TOKEN } from '../../examples/shop/app.js'
import { startRedis } from '../helpers/redis.js'
import { subscribe } from '../helpers/sse.js'
import { listen, listening } from '../helpers/net.js'

const bearer = { authorization: `Bearer ${DEMO_TOKEN}` }
const redis = await startRedis()
t.teardown(() => redis.stop())

t.test('the shop tells the cart\'s owner about every change, on every instance', async (t) => {
  const a = await buildShop({ layout: '0.5.0', redis: redis.url })
  const b = await buildShop({ layout: '0.5.0', redis: redis.url })
  const originA = await listen(a)
  const originB = await listen(b)
  t.teardown(() => Promise.all([a.close(), b.close()]))
  const events = await subscribe(originB, '/svc/events', bearer)
  const cart = await subscribe(originB, '/svc/channels/cart/demo-user', bearer)
  t.same((await cart.frameCount(1))[0].data, { version: 0, state: null })

  const added = await fetch(`${originA}/cart/items`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"sku":"mug","quantity":2}' })
  t.equal(added.status, 200)
  t.same((await events.frameCount(1))[0], { id: '1', event: 'cart.updated', data: { items: ['mug'] } })
  t.same((await cart.frameCount(2))[1].data, { version: 1, state: { items: [{ sku: 'mug', quantity: 2 }], total: 16 } })

  await fetch(`${originA}/cart/items/mug`, { method: 'DELETE', headers: bearer })
  t.same((await events.frameCount(2))[1].data, { items: [] })
  t.same((await cart.frameCount(3))[2].data, { version: 2, state: { items: [], total: 0 } })

  const stranger = await subscribe(originB, '/svc/channels/cart/someone-else', bearer)
  t.equal(stranger.status, 403, 'nobody watches another\'s cart')
  for (const stream of [events, cart, stranger]) stream.close()
})

t.test('layout 1.0: the event only, no channel', async (t) => {
  const app = await buildShop()
  const origin = await listening(t, app)
  const events = await subscribe(origin, '/svc/events', bearer)
  await fetch(`${origin}/cart/items`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"sku":"tea-green"}' })
  t.same((await events.frameCount(1))[0].data, { items: ['tea-green'] })
  events.close()
})

t.test('the README demo: two server.js with REDIS_URL share events', async (t) => {
  const server = fileURLToPath(new URL('../../examples/shop/server.js', import.meta.url))
  const [first, second] = await Promise.all([start(t, server), start(t, server)])
  const events = await subscribe(second, '/svc/events', bearer)
  await fetch(`${first}/svc/execute`, {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: '{"command":"cart.add","params":{"sku":"kettle"}}'
  })
  t.same((await events.frameCount(1, 5000))[0], { id: '1', event: 'cart.updated', data: { items: ['kettle'] } })
  events.close()
})

/** Runs examples/shop/server.js on a free port with REDIS_URL; resolves to its origin. */
async function start (t: Test, server: string): Promise<string> {
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, PORT: '0', REDIS_URL: redis.url },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill() })
  let output = ''
  child.stdout.setEncoding('utf8')
  return await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk
      const found = /Watch the cart's events: curl -N (http:\/\/127\.0\.0\.1:\d+)\/svc\/events/.exec(output)
      if (found !== null) resolve(found[1])
    })
    child.once('exit', (code) => reject(new Error(`server.js exited with ${code}:\n${output}`)))
  })
}
