import { spawn } from 'node:child_process'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { socketsTo, startRedis, startSilentServer } from '../helpers/redis.js'

/**
 * Reliability (issue #28): a start that failed against a Redis that does not answer left its sockets open
 * (measured on 0.2: 3), so a process whose ready() rejected could not exit. Now nothing is left: no socket,
 * no timer, once ready() has rejected.
 */

const CONNECT_TIMEOUT = 300

/**
 * This test's TypeScript loader alone, so the fixture imports lib/ as the tests do: tap's other loaders
 * (process info and coverage, mocks; also passed in NODE_OPTIONS) keep timers of their own in the process, which would hide the plugin's.
 */
const typescriptLoader = process.execArgv.filter((arg) => /typescript/.test(arg))
const withoutTapLoaders = { ...process.env, NODE_OPTIONS: '' }

interface ChildReport {
  code?: string
  message?: string
  /** How long ready() took to reject, in ms. */
  took: number
  /** process.getActiveResourcesInfo() once ready() rejected, and 5 ms later. */
  resources: string[]
  resourcesAfterATurn: string[]
  /** From the line printed after ready() rejected to the exit, in ms. */
  exitedAfter: number
  exitCode: number | null
}

/** Runs test/fixtures/faults/failed-start.ts against `url`; fails if the process has not exited on its own within `limit` ms. */
async function failedStart (url: string, limit = 15_000): Promise<ChildReport> {
  const child = spawn(process.execPath, [...typescriptLoader, 'test/fixtures/faults/failed-start.ts', url, String(CONNECT_TIMEOUT)], { stdio: ['ignore', 'pipe', 'pipe'], env: withoutTapLoaders })
  let output = ''
  let stderr = ''
  let printedAt = 0
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    if (printedAt === 0 && output.includes('\n')) printedAt = Date.now()
  })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the process had not exited after ${limit} ms; it printed: ${output}${stderr}`))
    }, limit)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
  const exitedAfter = Date.now() - printedAt
  if (printedAt === 0) throw new Error(`the fixture printed nothing: ${stderr}`)
  return { ...JSON.parse(output), exitedAfter, exitCode }
}

/** What keeps a process alive: sockets, timers, immediates. */
const holding = (resources: string[]) => resources.filter((resource) => /TCP|Timeout|Immediate/.test(resource))
/** Sockets. */
const sockets = (resources: string[]) => resources.filter((resource) => /TCP/.test(resource))

t.test('a stopped Redis (SIGSTOP): ready() rejects within connectTimeout, and the process exits by itself', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  redis.freeze()
  const report = await failedStart(redis.url)
  t.match(report, { code: 'FST_SVC_BROKER_UNAVAILABLE', message: /no answer within 300 ms \(realtime\.connectTimeout\)/, exitCode: 0 })
  t.ok(report.took >= CONNECT_TIMEOUT - 10 && report.took < CONNECT_TIMEOUT + 1000, `ready() rejected after ${report.took} ms`)
  t.same(sockets(report.resources), [], `no socket is open once ready() rejected: ${report.resources.join(', ')}`)
  // ioredis ends its own handling of a connection it gave up on in the next turn (a timer of 0 ms).
  t.same(holding(report.resourcesAfterATurn), [], `nothing holds the process a turn later: ${report.resourcesAfterATurn.join(', ')}`)
  t.ok(report.exitedAfter < 2000, `it exited by itself ${report.exitedAfter} ms after it printed`)
})

t.test('a server that accepts and never answers nor closes its side: the same', async (t) => {
  const silent = await startSilentServer({ halfOpen: true })
  t.teardown(() => silent.close())
  const report = await failedStart(silent.url)
  t.match(report, { code: 'FST_SVC_BROKER_UNAVAILABLE', exitCode: 0 })
  t.same(sockets(report.resources), [], `no socket is open once ready() rejected: ${report.resources.join(', ')}`)
  t.same(holding(report.resourcesAfterATurn), [], `nothing holds the process a turn later: ${report.resourcesAfterATurn.join(', ')}`)
  t.ok(report.exitedAfter < 2000, `it exited by itself ${report.exitedAfter} ms after it printed`)
  t.equal(silent.accepted, 3, 'the start had opened its three connections')
})

t.test('in the same process: no socket to Redis is left when ready() rejects', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  redis.freeze()
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, events: { news: { description: 'News' } }, realtime: { redis: redis.url, connectTimeout: CONNECT_TIMEOUT } })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_SVC_BROKER_UNAVAILABLE' })
  t.equal(socketsTo(redis.port), 0, 'no socket left, without waiting')
  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 500, 'close() after a failed start has nothing to wait for')
  redis.thaw()
})
