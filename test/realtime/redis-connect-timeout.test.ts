import { Socket } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { startRedis, startSilentServer } from '../helpers/redis.js'
import { pause } from '../helpers/sse.js'

/**
 * Defect: a Redis URL pointing at a port that accepts TCP and never answers made `ready()` fail only
 * through Fastify's generic 10 s FST_ERR_HOOK_TIMEOUT (never, with `pluginTimeout: 0`), and left three
 * ioredis sockets open after `app.close()`, which printed "Unhandled error event" once the port closed.
 * Now `realtime.connectTimeout` (default 5000 ms) bounds the start: `ready()` rejects with
 * FST_SVC_BROKER_UNAVAILABLE, and every connection the failed start opened is closed.
 */

/** What ioredis prints on stderr when an error event has no listener. */
const stderr: string[] = []
const write = process.stderr.write
process.stderr.write = function (chunk: string | Uint8Array, ...rest: unknown[]) {
  stderr.push(String(chunk))
  return (write as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest)
} as typeof process.stderr.write
t.teardown(() => { process.stderr.write = write })

/** This process's open sockets to `port`: the app's connections to its Redis. */
function socketsTo (port: number): number {
  const handles = (process as unknown as { _getActiveHandles (): unknown[] })._getActiveHandles()
  return handles.filter((handle) => handle instanceof Socket && handle.remotePort === port).length
}

async function until (condition: () => boolean, timeout: number, what: string): Promise<void> {
  const deadline = Date.now() + timeout
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await pause(10)
  }
}

/** `app.ready()`'s error, or a failure after `limit` ms instead of a test that hangs. */
async function readyError (app: FastifyInstance, limit: number): Promise<Error & { code?: string }> {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`ready() had not settled after ${limit} ms`)), limit)
  })
  try {
    return await Promise.race([app.ready().then(() => { throw new Error('ready() resolved') }, (error: Error) => error), hung])
  } finally {
    clearTimeout(timer)
  }
}

async function appOn (url: string, realtime: Record<string, unknown>, pluginTimeout = 0): Promise<FastifyInstance> {
  const app = Fastify({ pluginTimeout })
  // An event declared: a service that declares none needs no Redis and connects to none.
  await app.register(svcManifest, { ...requiredOptions, events: { 'order.placed': { description: 'An order' } }, realtime: { redis: url, ...realtime } })
  return app
}

t.test('a Redis that accepts and never answers: ready() rejects within connectTimeout, with pluginTimeout: 0 too; nothing is left open', async (t) => {
  const silent = await startSilentServer()
  t.teardown(() => silent.close())
  const app = await appOn(silent.url, { connectTimeout: 300 })
  const started = Date.now()
  const error = await readyError(app, 3000)
  const took = Date.now() - started
  t.match(error, {
    code: 'FST_SVC_BROKER_UNAVAILABLE',
    statusCode: 503,
    message: /^Realtime broker unavailable: cannot connect to realtime.redis \(redis:\/\/127.0.0.1:\d+\): no answer within 300 ms \(realtime.connectTimeout\)$/
  })
  // The timer starts when the connections open, after mqemitter-redis is loaded (slower the first time).
  t.ok(took >= 290 && took < 3000, `rejected after ${took} ms`)
  t.equal(silent.accepted, 3, 'the start had opened its three connections')
  await until(() => silent.open === 0, 1000, 'the connections to close')
  t.equal(socketsTo(silent.port), 0, 'no socket of the app is left')
  await app.close()

  await pause(300)
  t.equal(silent.accepted, 3, 'nothing reconnects afterwards')
  await silent.close()
  await pause(200)
  t.equal(socketsTo(silent.port), 0)
  t.notMatch(stderr.join(''), /Unhandled error event/, 'ioredis printed no unhandled error')
})

t.test('the default is 5 s', async (t) => {
  const silent = await startSilentServer()
  t.teardown(() => silent.close())
  const app = await appOn(silent.url, {})
  const started = Date.now()
  const error = await readyError(app, 9000)
  const took = Date.now() - started
  t.match(error, { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /no answer within 5000 ms \(realtime.connectTimeout\)/ })
  t.ok(took >= 4900 && took < 8000, `rejected after ${took} ms`)
  await until(() => silent.open === 0 && socketsTo(silent.port) === 0, 1000, 'the connections to close')
  await app.close()
})

t.test('a server that never closes its side: the app\'s sockets are gone within ioredis\'s 2 s disconnect limit', async (t) => {
  const silent = await startSilentServer({ halfOpen: true })
  t.teardown(() => silent.close())
  const app = await appOn(silent.url, { connectTimeout: 200 })
  t.match(await readyError(app, 3000), { code: 'FST_SVC_BROKER_UNAVAILABLE' })
  await app.close()
  await until(() => socketsTo(silent.port) === 0, 3000, 'the app\'s sockets to close')
  t.equal(socketsTo(silent.port), 0, 'no socket of the app is left')
  t.notMatch(stderr.join(''), /Unhandled error event/)
})

t.test('Fastify\'s pluginTimeout shorter than connectTimeout: its timeout first, and the connections still close', async (t) => {
  const silent = await startSilentServer()
  t.teardown(() => silent.close())
  const app = await appOn(silent.url, { connectTimeout: 500 }, 100)
  t.match(await readyError(app, 3000), { code: 'FST_ERR_HOOK_TIMEOUT' })
  await app.close()
  await until(() => silent.open === 0 && socketsTo(silent.port) === 0, 2000, 'the connections to close')
  t.equal(silent.accepted, 3)
  t.notMatch(stderr.join(''), /Unhandled error event/)
})

t.test('a Redis that answers in time starts as before', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const app = await appOn(redis.url, { connectTimeout: 1000 })
  await app.ready()
  t.equal((await app.inject({ method: 'GET', url: '/svc/events', payloadAsStream: true })).statusCode, 200)
  await app.close()
})
