// Audiences (DESIGN §11): with hidden commands, the public manifest costs what a prebuilt Buffer of the same
// bytes and headers costs, and a manifest request with a credential costs at most the verifier's own cost +
// 20 µs: it is measured against a route that runs the same verifier on the same token and sends the admin
// view's bytes from a prebuilt Buffer. Server CPU per request, same server, rounds alternating.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { load, measureRound } from './mcp.js'
import { BASELINE_PATH, MANIFEST_PATH } from './routes.js'
import { median, waitForBuild } from './stats.js'

export async function measureAudiences ({ rounds, duration }) {
  await waitForBuild()
  const child = fork(new URL('./audiences-server.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [started] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new Error(`audiences benchmark server exited with code ${code}`) })
  ])
  const server = { child, ...started }
  try {
    const hidden = Object.keys(server.adminCommands).length - Object.keys(server.publicCommands).length
    if (hidden <= 0) throw new Error('the admin view lists no more commands than the public one: nothing is measured')
    const base = `http://127.0.0.1:${server.port}`
    const admin = { authorization: server.authorization }
    const targets = {
      public: { url: base + MANIFEST_PATH },
      buffer: { url: base + BASELINE_PATH },
      credentialed: { url: base + MANIFEST_PATH, headers: admin },
      verified: { url: base + server.verifiedPath, headers: admin }
    }
    const cpu = Object.fromEntries(Object.keys(targets).map((name) => [name, []]))
    for (const target of Object.values(targets)) await load(target, 1)
    for (let round = 0; round < rounds; round++) {
      for (const [name, target] of Object.entries(targets)) cpu[name].push(await measureRound(server, target, duration))
    }
    return {
      hidden,
      cpu: Object.fromEntries(Object.entries(cpu).map(([name, values]) => [name, median(values)])),
      publicRatios: cpu.public.map((value, index) => value / cpu.buffer[index]),
      credentialExtra: cpu.credentialed.map((value, index) => value - cpu.verified[index])
    }
  } finally {
    const exited = once(child, 'exit')
    child.send({ type: 'close' })
    await exited
  }
}
