// One start-up sample, run in a fresh process: `node bench/startup.js <plain|plugin|swagger> <count>`.
// Times registering the plugin (or @fastify/swagger, or nothing) and `count` routes, up to `ready()`;
// for swagger, up to its document too. Prints `{ "ms": …, "cpuMs": … }`: wall-clock time, and the CPU time
// of the process, which other work on a busy machine disturbs much less.
import { performance } from 'node:perf_hooks'
import swagger from '@fastify/swagger'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, manifestOptions, stubCompilers } from './routes.js'

const [variant, countArgument] = process.argv.slice(2)
const count = Number(countArgument)

const app = Fastify()
stubCompilers(app)
const started = performance.now()
const cpuStarted = process.cpuUsage()
if (variant === 'plugin') await app.register(svcManifest, manifestOptions)
if (variant === 'swagger') await app.register(swagger, { openapi: { info: { title: 'Bench', version: '1.0.0' } } })
addCommandRoutes(app, count)
await app.ready()
// swagger builds its document on first call: part of its start-up. The plugin built its manifest in ready().
if (variant === 'swagger') app.swagger()
const ms = performance.now() - started
const cpu = process.cpuUsage(cpuStarted)
const described = describedCount()

if (described !== count) throw new Error(`${variant} described ${described} of ${count} routes`)
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }))

function describedCount () {
  if (variant === 'plugin') return Object.keys(app.svc.manifest.commands).length
  if (variant === 'swagger') return Object.keys(app.swagger().paths).length
  return count
}
