import { Writable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** An app's log lines, parsed: pass `stream` as the logger's stream. */
export function logCollector (): { lines: Array<Record<string, unknown>>, stream: Writable } {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()))
      callback()
    }
  })
  return { lines, stream }
}

setFlagsFromString('--expose-gc')
/** A full garbage collection, so heap figures show what is retained. */
export const gc = runInNewContext('gc') as () => void

/**
 * Memory once collections have settled: a Buffer's backing store is freed after the object that held it is
 * collected, so one gc() can still count bytes that are already garbage.
 */
export async function settledMemory (): Promise<NodeJS.MemoryUsage> {
  for (let collection = 0; collection < 4; collection++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return process.memoryUsage()
}
