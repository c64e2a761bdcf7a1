// One whole-process sample of what a user feels, in a fresh process: `node bench/app-start.js <plain|plugin> <count>`.
// A small app as people write them: real validation (Ajv) and serialisation (fast-json-stringify), half GET routes
// with path and querystring schemas, half POST routes with a body schema, all tagged as commands. The plugin
// variant imports and registers the plugin; the plain one does not. Prints the process's CPU time from its start
// to `ready()`, module loading included: `{ "cpuMs": … }`.
import Fastify from 'fastify'
import { addCommandRoutes, manifestOptions } from './routes.js'

const [variant, countArgument] = process.argv.slice(2)
const app = Fastify()
if (variant === 'plugin') {
  const { default: svcManifest } = await import('fastify-svc-manifest')
  await app.register(svcManifest, manifestOptions)
}
addCommandRoutes(app, Number(countArgument))
await app.ready()
const { user, system } = process.cpuUsage()
console.log(JSON.stringify({ cpuMs: (user + system) / 1000 }))
