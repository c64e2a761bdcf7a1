import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { type InvokeLimits } from '../options.js'
import { isPlainObject } from '../util/objects.js'
import type { CallBounds, Dispatcher } from './dispatch.js'
import { relayHeaders, sendInvalidRequest } from './envelope.js'
import { refusal, type Outcome } from './outcome.js'
import { OverBudget, resolveReferences, type StepResults } from './references.js'

interface Step {
  command: string
  params: Record<string, unknown>
  as?: string
}

interface Envelope {
  steps: Step[]
  continueOnError: boolean
}

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * `POST {basePath}/pipeline`, body `{ steps: [{ command, params?, as? }], continueOnError? }`: runs the
 * steps in order, each exactly like execute, and answers 200 with one result per step that ran. What one
 * request may cost is bounded: `maxSteps` inner calls, each step's resolved params by its route's body
 * limit, and the results held by `maxResultBytes` (the step that passes it fails, and the pipeline stops).
 */
export function pipelineHandler (dispatcher: Dispatcher, limits: InvokeLimits): RouteHandlerMethod {
  return async function pipeline (request: FastifyRequest, reply: FastifyReply) {
    const envelope = readEnvelope(request.body, limits.maxSteps)
    if (typeof envelope === 'string') return sendInvalidRequest(reply, envelope, undefined)
    const results: Record<string, unknown>[] = []
    const reachable: StepResults = { named: new Map(), sizes: new WeakMap() }
    let ok = true
    let held = 0
    for (const [index, step] of envelope.steps.entries()) {
      // Each step holds at most what is left of the pipeline's budget, counted as its response arrives.
      const outcome = await runStep(dispatcher, request, index, step, reachable, { caller: reply, maxBytes: limits.maxResultBytes - held })
      // Nobody reads the answer: no further step runs.
      if (reply.raw.destroyed) break
      if (outcome.headers !== undefined) relayHeaders(reply, outcome.headers)
      held += outcome.bytes ?? 0
      if (outcome.overBudget === true) {
        const { error } = refusal(413, 'PAYLOAD_TOO_LARGE', `steps[${index}] (${step.command}): the results of this pipeline would pass ${limits.maxResultBytes} bytes (invoke.maxResultBytes); the pipeline stops here.`)
        results.push({ command: step.command, ok: false, error })
        ok = false
        break
      }
      if (outcome.ok) {
        const entry: Record<string, unknown> = { command: step.command, ok: true, result: outcome.result }
        if (outcome.encoding !== undefined) {
          entry.encoding = outcome.encoding
          entry.contentType = outcome.contentType
        }
        results.push(entry)
        reachable.prev = { result: outcome.result }
        if (step.as !== undefined) reachable.named.set(step.as, reachable.prev)
        continue
      }
      results.push({ command: step.command, ok: false, error: outcome.error })
      reachable.prev = undefined
      ok = false
      if (!envelope.continueOnError) break
    }
    return reply.send({ ok, results })
  }
}

async function runStep (dispatcher: Dispatcher, request: FastifyRequest, index: number, step: Step, reachable: StepResults, bounds: CallBounds): Promise<Outcome> {
  const budget = dispatcher.bodyLimitOf(step.command)
  // An unknown command (or a hidden one the caller may not see): dispatch answers it, before any reference is looked at.
  if (budget === undefined) return await dispatcher.dispatch(request, step.command, step.params, bounds)
  const exists = dispatcher.exists(request, step.command)
  if (exists !== true && !(await exists)) return await dispatcher.dispatch(request, step.command, step.params, bounds)
  let params: Record<string, unknown>
  try {
    params = resolveReferences(step.params, reachable, budget)
  } catch (error) {
    if (error instanceof OverBudget) {
      return refusal(413, 'PAYLOAD_TOO_LARGE', `steps[${index}] (${step.command}): its params, with references resolved, pass the route's body limit of ${budget} bytes.`)
    }
    return refusal(400, 'INVALID_PARAMS', (error as Error).message)
  }
  return await dispatcher.dispatch(request, step.command, params, bounds)
}

/** The checked envelope, or why it is refused. Every step is checked before the first one runs. */
function readEnvelope (body: unknown, maxSteps: number): Envelope | string {
  const shape = '{ steps: [{ command, params?, as? }], continueOnError? }'
  if (!isPlainObject(body)) return `The body must be a JSON object ${shape}.`
  const { steps, continueOnError = false } = body
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > maxSteps) {
    return `"steps" must be an array of 1 to ${maxSteps} steps { command, params?, as? }; got ${Array.isArray(steps) ? `${steps.length} steps` : 'no array'}.`
  }
  if (typeof continueOnError !== 'boolean') return '"continueOnError" must be true or false when present.'
  const read: Step[] = []
  const aliases = new Set<string>()
  for (const [index, step] of steps.entries()) {
    const where = `steps[${index}]`
    if (!isPlainObject(step)) return `${where} must be an object { command, params?, as? }.`
    const { command, params = {}, as } = step
    if (typeof command !== 'string') return `${where}.command must be a string: the name of a command of the manifest.`
    if (!isPlainObject(params)) return `${where}.params must be an object of param values when present.`
    if (as !== undefined) {
      if (typeof as !== 'string' || !ALIAS.test(as) || as === 'prev') return `${where}.as must be a name of letters, digits and "_" (not starting with a digit), other than "prev"; got ${JSON.stringify(as)}.`
      if (aliases.has(as)) return `${where}.as "${as}" is already the name of an earlier step.`
      aliases.add(as)
    }
    read.push(as === undefined ? { command, params } : { command, params, as })
  }
  return { steps: read, continueOnError }
}
