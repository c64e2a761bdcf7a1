// One import-time sample, run in a fresh process: `node bench/import.js <entry>`, where entry is `plugin`
// (the package's main entry), `client`, or a path to another build of the main entry (to compare two builds).
// Fastify is imported first, as an app does; what is timed is the CPU the entry's own import adds on top.
// Prints `{ "cpuMs": … }`.
import { pathToFileURL } from 'node:url'

const ENTRIES = { plugin: 'fastify-svc-manifest', client: 'fastify-svc-manifest/client' }
const [entry] = process.argv.slice(2)

await import('fastify')
const started = process.cpuUsage()
await import(ENTRIES[entry] ?? pathToFileURL(entry).href)
const cpu = process.cpuUsage(started)
console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 }))
