// One memory sample, run in a fresh process with --expose-gc:
// `node --expose-gc bench/memory.js <plain|plugin|plugin-read> <count>`. Prints the heap (and array buffers, where the
// served body lives) after ready() and full collections. `plugin-read` reads `app.svc.manifest` first, which keeps
// the parsed manifest object alive; `plugin` only checks the served body.
import { setImmediate } from 'node:timers/promises'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'
import { addCommandRoutes, manifestOptions, stubCompilers } from './routes.js'

const [variant, countArgument] = process.argv.slice(2)
const count = Number(countArgument)

const app = Fastify()
stubCompilers(app)
if (variant !== 'plain') await app.register(svcManifest, manifestOptions)
addCommandRoutes(app, count)
await app.ready()
if (variant === 'plugin-read' && Object.keys(app.svc.manifest.commands).length !== count) throw new Error('manifest is incomplete')
if (variant === 'plugin' && (await app.inject('/.well-known/svc.json')).statusCode !== 200) throw new Error('manifest is not served')

for (let i = 0; i < 4; i++) {
  globalThis.gc()
  await setImmediate()
}
const { heapUsed, arrayBuffers } = process.memoryUsage()
console.log(JSON.stringify({ heapUsed, arrayBuffers }))
