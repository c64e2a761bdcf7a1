import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { isPlainObject } from '../options.js'
import type { Dispatcher } from './dispatch.js'
import { relayHeaders, sendInvalidRequest } from './envelope.js'
import { refusal, type Outcome } from './outcome.js'
import { resolveReferences, type StepResults, type UnresolvedReference } from './references.js'

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
 * steps in order, each exactly like execute, and answers 200 with one result per step that ran.
 */
export function pipelineHandler (dispatcher: Dispatcher, maxSteps: number): RouteHandlerMethod {
  return async function pipeline (request: FastifyRequest, reply: FastifyReply) {
    const envelope = readEnvelope(request.body, maxSteps)
    if (typeof envelope === 'string') return sendInvalidRequest(reply, envelope, undefined)
    const results: Record<string, unknown>[] = []
    const reachable: StepResults = { named: new Map() }
    let ok = true
    for (const step of envelope.steps) {
      const outcome = await runStep(dispatcher, request, step, reachable)
      if (outcome.headers !== undefined) relayHeaders(reply, outcome.headers)
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

async function runStep (dispatcher: Dispatcher, request: FastifyRequest, step: Step, reachable: StepResults): Promise<Outcome> {
  let params: Record<string, unknown>
  try {
    params = resolveReferences(step.params, reachable)
  } catch (error) {
    return refusal(400, 'INVALID_PARAMS', (error as UnresolvedReference).message)
  }
  return await dispatcher.dispatch(request, step.command, params)
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
