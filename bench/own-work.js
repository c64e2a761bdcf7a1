// One sample of the plugin's own start-up work, in a fresh process: `node bench/own-work.js <plugin|swagger> <count>`.
// `app.addHook` is wrapped while the variant registers, so every hook it adds (onRoute, onReady) is timed, as is
// register() itself and, for @fastify/swagger, its first app.swagger() (where it builds its document). Main-thread
// CPU (`process.threadCpuUsage()`, Node >= 23.9) when available, else process CPU. The same process then times
// the floor: one JSON.stringify + Buffer.from + SHA-256 of the served manifest.
// Prints `{ "ownMs": …, "floorMs": …, "clock": "thread" | "process", "parts": { register, onRoute, … } }`.
import { createHash } from 'node:crypto'
import swagger from '@fastify/swagger'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, manifestOptions, stubCompilers } from './routes.js'

const [variant, countArgument] = process.argv.slice(2)
const count = Number(countArgument)
const clock = typeof process.threadCpuUsage === 'function' ? 'thread' : 'process'
const cpuNow = clock === 'thread' ? () => process.threadCpuUsage() : () => process.cpuUsage()
let ownMicros = 0
/** The same time split by where it was spent: register, each hook name, swagger(). */
const parts = {}

function charge (part, micros) {
  ownMicros += micros
  parts[part] = (parts[part] ?? 0) + micros / 1000
}

function since (start) {
  const now = cpuNow()
  return (now.user - start.user) + (now.system - start.system)
}

/** A hook that adds its own CPU time to the variant's total; async hooks are timed until they settle. */
function timedHook (name, hook) {
  if (hook.constructor.name === 'AsyncFunction') {
    return async function (...args) {
      const start = cpuNow()
      try { return await hook.apply(this, args) } finally { charge(name, since(start)) }
    }
  }
  const timed = function (...args) {
    const start = cpuNow()
    try { return hook.apply(this, args) } finally { charge(name, since(start)) }
  }
  // Fastify tells callback hooks from the others by their arity.
  Object.defineProperty(timed, 'length', { value: hook.length })
  return timed
}

const app = Fastify()
stubCompilers(app)
const addHook = app.addHook
app.addHook = function (name, hook) { return addHook.call(this, name, timedHook(name, hook)) }
const registerStart = cpuNow()
if (variant === 'plugin') await app.register(svcManifest, manifestOptions)
else await app.register(swagger, { openapi: { info: { title: 'Bench', version: '1.0.0' } } })
charge('register', since(registerStart))
app.addHook = addHook
addCommandRoutes(app, count)
await app.ready()
if (variant === 'swagger') {
  const start = cpuNow()
  app.swagger()
  charge('swagger()', since(start))
}

const manifest = JSON.parse((await app.inject('/.well-known/svc.json')).body || 'null')
if (variant === 'plugin' && Object.keys(manifest.commands).length !== count) throw new Error('manifest is incomplete')
/**
 * The floor, repeated until it has used 100 ms of CPU and averaged: the thread clock can tick in steps of a few
 * milliseconds, as long as one repetition at 1,000 commands.
 */
function floor () {
  const start = cpuNow()
  let repetitions = 0
  do {
    createHash('sha256').update(Buffer.from(JSON.stringify(manifest))).digest('hex')
    repetitions++
  } while (since(start) < 100_000 || repetitions < 3)
  return since(start) / repetitions
}
const floorMicros = variant === 'plugin' ? floor() : 0
console.log(JSON.stringify({ ownMs: ownMicros / 1000, floorMs: floorMicros / 1000, clock, parts }))
