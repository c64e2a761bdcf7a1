// Per-request work of a route handler, measured inside the server process with the inspector: a CPU
// profile says which functions ran beneath the handler, a sampling heap profile (objects collected by GC
// included) says how many bytes were allocated beneath it. Comparing the manifest handler with the
// baseline handler shows any serialisation, hashing or allocation the manifest path adds.
import { Session } from 'node:inspector/promises'

/** Frames that serialise or hash: by function name, or by file (node:crypto, the canonicalize package). */
const SERIALISING_OR_HASHING_NAME = /^(createHash|Hash|digest|update|canonicalize)$|stringify|serializ/i
const SERIALISING_OR_HASHING_FILE = /crypto|canonicalize/

export class HandlerProfiler {
  /** `handlers` maps a label to the function name of a route handler. */
  constructor (handlers) {
    this.handlers = handlers
    this.session = new Session()
    this.session.connect()
  }

  async start () {
    await this.session.post('Profiler.enable')
    await this.session.post('Profiler.setSamplingInterval', { interval: 50 })
    await this.session.post('Profiler.start')
    await this.session.post('HeapProfiler.enable')
    await this.session.post('HeapProfiler.startSampling', {
      samplingInterval: 32,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
  }

  /**
   * For each label: the functions that ran beneath its handler, the bytes allocated beneath it (`allocated`)
   * and the part allocated by code of the handler's own file (`ownAllocated`), Fastify's and Node's excluded.
   */
  async stop () {
    const { profile: heap } = await this.session.post('HeapProfiler.stopSampling')
    const { profile: cpu } = await this.session.post('Profiler.stop')
    const result = {}
    for (const [label, handlerName] of Object.entries(this.handlers)) {
      const functions = functionsBeneath(cpu, handlerName)
      result[label] = {
        ownFunctions: [...functions.own],
        serialisingOrHashing: [...functions.serialisingOrHashing],
        ...bytesBeneath(heap.head, handlerName)
      }
    }
    return result
  }
}

/**
 * Names (`function file`) of the frames beneath a frame of `handlerName` in a CPU profile that are in the
 * handler's own file (`own`), or that serialise or hash.
 */
function functionsBeneath (cpu, handlerName) {
  const byId = new Map(cpu.nodes.map((node) => [node.id, node]))
  const found = { own: new Set(), serialisingOrHashing: new Set() }
  const visit = (node, handlerUrl) => {
    const { functionName, url } = node.callFrame
    const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}`
    if (url === handlerUrl) found.own.add(name)
    if (SERIALISING_OR_HASHING_NAME.test(functionName) || SERIALISING_OR_HASHING_FILE.test(url)) found.serialisingOrHashing.add(name)
    for (const child of node.children ?? []) visit(byId.get(child), handlerUrl)
  }
  for (const node of cpu.nodes) if (node.callFrame.functionName === handlerName) visit(node, node.callFrame.url)
  return found
}

/** Sampled bytes allocated beneath frames of `handlerName` in a heap sampling profile, in all and in its file. */
function bytesBeneath (head, handlerName) {
  const sum = { allocated: 0, ownAllocated: 0 }
  const visit = (node, handlerUrl) => {
    if (handlerUrl === undefined && node.callFrame.functionName === handlerName) handlerUrl = node.callFrame.url
    if (handlerUrl !== undefined) {
      sum.allocated += node.selfSize
      if (node.callFrame.url === handlerUrl) sum.ownAllocated += node.selfSize
    }
    for (const child of node.children) visit(child, handlerUrl)
  }
  visit(head, undefined)
  return sum
}
