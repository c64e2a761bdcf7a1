import type { EventSourceMessage } from 'eventsource-parser'
import { DEFAULT_BASE_PATH, endpointsOf, type CommandErrorBody, type EndpointName, type PipelineStepResult } from '../manifest/invocation.js'
import { ManifestClientError } from './errors.js'
import { exchange, openExchange, readLimits, type HttpRequest, type HttpResponse } from './http.js'
import { messagesOf } from './streams.js'

/** Options of one call. */
export interface InvokeOptions {
  /**
   * Sent as `Authorization: <scheme> <token>`, the scheme the manifest's `auth` names (`Bearer` when it names
   * none). Only to the origin of the manifest (or the explicit `invokeUrl`).
   */
  token?: string
  signal?: AbortSignal
}

/** A progress report of the route (`request.svc.progress()`), as a streamed execute sends it. */
export interface Progress {
  progress: number
  total?: number
  message?: string
}

/** Options of `execute`. */
export interface ExecuteOptions extends InvokeOptions {
  /**
   * Milliseconds this call may take, from sending the request to the result, in place of the client's
   * `timeout`. Past it the call rejects with `SVC_CLIENT_TIMEOUT`, and its request is aborted, which
   * cancels the route on the server.
   */
  timeout?: number
  /**
   * Called with each progress report of the route. Given, the call is a streamed execute (`"stream": true`),
   * whose `done` frame gives the result; the route's pieces, if it streams any, are not kept (see `stream`).
   */
  onProgress?: (progress: Progress) => void
}

/** Options of `stream`. */
export interface StreamCallOptions extends InvokeOptions {
  /** Called with each progress report of the route, between the pieces. */
  onProgress?: (progress: Progress) => void
}

export interface PipelineOptions extends InvokeOptions {
  /** Run every step even after one fails. Default false: stop at the first failure. */
  continueOnError?: boolean
}

export interface PipelineStep {
  command: string
  params?: Record<string, unknown>
  /** A name later steps use in references: `$<as>`. */
  as?: string
}

export type { CommandErrorBody, PipelineStepResult } from '../manifest/invocation.js'

export interface PipelineResult {
  /** True when every step ran and succeeded. */
  ok: boolean
  /** One entry per step that ran, in order. */
  results: PipelineStepResult[]
}

/**
 * A command that failed: the server's `error` object. `code` is `INVALID_PARAMS`, `UNAUTHORIZED`,
 * `UNKNOWN_COMMAND`, … (docs/invoke.md); `cause` is the route's own error code when it sent one.
 */
export class CommandError extends Error {
  readonly code: string
  readonly status: number

  constructor (error: CommandErrorBody) {
    super(error.message, error.cause === undefined ? undefined : { cause: error.cause })
    this.name = 'CommandError'
    this.code = error.code
    this.status = error.status
  }
}

export interface Invoker {
  execute<T = unknown>(command: string, params?: Record<string, unknown>, options?: ExecuteOptions): Promise<T>
  /**
   * Calls a command as a streamed execute: yields each piece the route writes as it arrives, and returns the
   * final result (the generator's return value). The request is sent at the first `next()`; leaving the loop
   * early (`break`, `return()`) aborts it, which cancels the route on the server.
   */
  stream<Piece = unknown, Result = unknown>(command: string, params?: Record<string, unknown>, options?: StreamCallOptions): AsyncGenerator<Piece, Result, undefined>
  pipeline (steps: PipelineStep[], options?: PipelineOptions): Promise<PipelineResult>
}

interface InvokerSetup {
  /** The client's `fetch`, `timeout` and `maxBodySize`. */
  http: { fetch: typeof fetch, timeout: number, maxBodySize: number }
  /** The manifest's URL: its origin is where commands are called. */
  manifestUrl: string
  /** `{invokeUrl}/execute` and `{invokeUrl}/pipeline`, when the caller named them. */
  invokeUrl?: string
  /**
   * The `Link` header of the last manifest response, and where the endpoints are when it names none (`/svc`,
   * or `/surf` for a Surf manifest); fetches the manifest first when there is none yet.
   */
  discovery: () => Promise<Discovery>
  /** The word a token is sent with: the manifest's `auth.scheme`, else `Bearer`. */
  scheme: () => Promise<string>
}

/** `client.execute` and `client.pipeline`: POST to the endpoints the manifest's `Link` header names. */
export function createInvoker (setup: InvokerSetup): Invoker {
  async function endpoint (name: EndpointName): Promise<string> {
    if (setup.invokeUrl !== undefined) return `${setup.invokeUrl.replace(/\/+$/, '')}/${name}`
    const { link, basePath } = await setup.discovery()
    return endpointOf(setup.manifestUrl, link, name, basePath)
  }

  /** The request to an endpoint: its URL, and the body and token it carries (and nothing more, anywhere else). */
  async function prepare (name: EndpointName, body: unknown, options: InvokeOptions, accept: string, timeout: number): Promise<{ url: string, request: HttpRequest }> {
    const url = await endpoint(name)
    const headers: Record<string, string> = { 'content-type': 'application/json', accept }
    if (options.token !== undefined) headers.authorization = `${await setup.scheme()} ${options.token}`
    // A redirect is not followed: the body and the token go to the endpoint named, or nowhere.
    return { url, request: { ...setup.http, timeout, method: 'POST', headers, body: JSON.stringify(body), signal: options.signal, followRedirects: false } }
  }

  /** The envelope the endpoint answered, whatever its status; anything else is `SVC_CLIENT_INVALID_RESPONSE`. */
  async function post (name: EndpointName, body: unknown, options: InvokeOptions, timeout = setup.http.timeout): Promise<Envelope> {
    const { url, request } = await prepare(name, body, options, 'application/json', timeout)
    return await exchange(url, request, async (response) => await envelopeOf(url, name, response))
  }

  /**
   * The pieces of a streamed execute as they arrive; returns the final result (`done`), throws the `error`
   * frame's failure. Each frame is bounded by `maxBodySize`; `timed`: the whole read is within the call's
   * time limit.
   */
  async function * piecesOf (url: string, response: HttpResponse, timed: boolean, onProgress: ((progress: Progress) => void) | undefined): AsyncGenerator<unknown, unknown, undefined> {
    const messages = messagesOf(response, { maxBodySize: setup.http.maxBodySize, what: `POST ${url}`, tooLarge: 'refused. Raise maxBodySize if its frames are this large', timed })
    for await (const message of messages) {
      const frame = frameOf(url, message)
      if (frame?.type === 'chunk') yield pieceOf(frame)
      else if (frame?.type === 'progress') onProgress?.(progressOf(frame))
      else if (frame !== undefined) return resultOf(frame)
    }
    throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `POST ${url} ended its event stream without a done or error frame`, { status: response.status })
  }

  return {
    async execute<T> (command: string, params: Record<string, unknown> = {}, options: ExecuteOptions = {}): Promise<T> {
      const timeout = options.timeout === undefined ? setup.http.timeout : readLimits({ timeout: options.timeout }).timeout
      const { onProgress } = options
      if (onProgress === undefined) return resultOf(await post('execute', { command, params }, options, timeout)) as T
      const { url, request } = await prepare('execute', { command, params, stream: true }, options, STREAM_ACCEPT, timeout)
      return await exchange(url, request, async (response) => {
        // A refusal before the stream (401, 400, …) is the ordinary envelope; so is a server that answered at once.
        if (!isEventStream(response)) return resultOf(await envelopeOf(url, 'execute', response)) as T
        // Pieces are not kept: a call that wants them is a stream().
        const pieces = piecesOf(url, response, true, onProgress)
        let next = await pieces.next()
        while (next.done !== true) next = await pieces.next()
        return next.value as T
      })
    },
    async * stream<Piece, Result> (command: string, params: Record<string, unknown> = {}, options: StreamCallOptions = {}): AsyncGenerator<Piece, Result, undefined> {
      const { url, request } = await prepare('execute', { command, params, stream: true }, options, STREAM_ACCEPT, setup.http.timeout)
      const { response, end } = await openExchange(url, request)
      try {
        if (!isEventStream(response)) return resultOf(await envelopeOf(url, 'execute', response)) as Result
        return (yield * piecesOf(url, response, false, options.onProgress) as AsyncGenerator<Piece, Result, undefined>)
      } finally {
        // Done, failed, or left early: whatever is left of the stream is aborted, and the route with it.
        await end()
      }
    },
    async pipeline (steps: PipelineStep[], options: PipelineOptions = {}): Promise<PipelineResult> {
      const body = options.continueOnError === undefined ? { steps } : { steps, continueOnError: options.continueOnError }
      const envelope = await post('pipeline', body, options)
      // A pipeline that ran answers { ok, results }; a refused one { ok: false, error }.
      if (envelope.error !== undefined) throw new CommandError(envelope.error)
      return { ok: envelope.ok, results: envelope.results as PipelineStepResult[] }
    }
  }
}

/** What the endpoints answer: a refusal has `error`; a call `result`, a pipeline `results`. */
interface Envelope {
  ok: boolean
  error?: CommandErrorBody
  result?: unknown
  encoding?: 'base64'
  contentType?: string
  results?: unknown
}

/** What a streamed execute is asked with: the stream, and JSON for a refusal before it. */
const STREAM_ACCEPT = 'text/event-stream, application/json'

/** One frame of a streamed execute (docs/long-running.md). */
type StreamFrame =
  | { type: 'chunk', data: unknown, encoding?: 'base64' }
  | { type: 'progress', progress: number, total?: number, message?: string }
  | { type: 'done', result: unknown, encoding?: 'base64', contentType?: string }
  | { type: 'error', error: CommandErrorBody }

function isEventStream (response: HttpResponse): boolean {
  return response.status === 200 && String(response.headers.get('content-type')).startsWith('text/event-stream')
}

/** Reads the answer's body as an envelope; anything else is `SVC_CLIENT_INVALID_RESPONSE`. */
async function envelopeOf (url: string, name: EndpointName, response: HttpResponse): Promise<Envelope> {
  const { status } = response
  const text = await response.text()
  // A redirect is no answer, whatever its body says.
  const envelope = status >= 300 && status < 400 ? undefined : parseEnvelope(text, name, status)
  if (envelope === undefined) {
    throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `POST ${url} answered ${status} without an envelope { ok, … }: is the plugin's invoke option on?`, { status })
  }
  return envelope
}

/**
 * The result of an execute envelope or a `done` frame; the error of a refused envelope or an `error` frame
 * is thrown. Bytes that are neither JSON nor text come as base64: handed over as a Blob with their media type.
 */
function resultOf (answer: Envelope | StreamFrame): unknown {
  if ('error' in answer && answer.error !== undefined) throw new CommandError(answer.error)
  const { result, encoding, contentType } = answer as Envelope
  if (encoding === 'base64') return new Blob([Buffer.from(result as string, 'base64')], { type: contentType })
  return result
}

/** A piece: its data, or its bytes when the route wrote bytes that are not UTF-8 (sent as base64). */
function pieceOf (frame: StreamFrame & { type: 'chunk' }): unknown {
  return frame.encoding === 'base64' ? Buffer.from(frame.data as string, 'base64') : frame.data
}

function progressOf ({ progress, total, message }: StreamFrame & { type: 'progress' }): Progress {
  const report: Progress = { progress }
  if (total !== undefined) report.total = total
  if (message !== undefined) report.message = message
  return report
}

/** The frames a streamed execute sends. */
const FRAME_TYPES = new Set(['chunk', 'progress', 'done', 'error'])

/**
 * A frame of a streamed execute; undefined for a type this client does not know (a later server's), which
 * is skipped. Data that is not a frame, or a known frame without what it must carry, is refused.
 */
function frameOf (url: string, message: EventSourceMessage): StreamFrame | undefined {
  let frame: StreamFrame | null = null
  try {
    frame = JSON.parse(message.data)
  } catch {}
  const invalid = (): ManifestClientError => new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `POST ${url} sent an event-stream frame that is not one of a streamed execute: ${message.data.slice(0, 200)}`, { status: 200 })
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) throw invalid()
  if (!FRAME_TYPES.has(frame.type)) return undefined
  const valid = (frame.type === 'chunk' && 'data' in frame) ||
    (frame.type === 'progress' && typeof frame.progress === 'number') ||
    (frame.type === 'done' && 'result' in frame) ||
    (frame.type === 'error' && isErrorBody(frame.error))
  if (!valid) throw invalid()
  // Our error frames carry their status; one without (another server's) is a failure of the call: 500.
  return frame.type === 'error' ? { type: 'error', error: { ...frame.error, status: frame.error.status ?? 500 } } : frame
}

/**
 * The envelope of an answer. An error without our envelope's `status` (Surf's `{ ok: false, error: { code,
 * message } }`) takes the answer's HTTP status.
 */
function parseEnvelope (text: string, name: EndpointName, status: number): Envelope | undefined {
  let body: Envelope | null
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (body === null || typeof body !== 'object') return undefined
  if (body.ok === false && isErrorBody(body.error)) return { ...body, error: { ...body.error, status: body.error.status ?? status } }
  const answered = name === 'execute' ? body.ok === true && 'result' in body : typeof body.ok === 'boolean' && Array.isArray(body.results)
  return answered ? { ...body, error: undefined } : undefined
}

function isErrorBody (value: unknown): value is Omit<CommandErrorBody, 'status'> & { status?: number } {
  const error = value as CommandErrorBody | null
  return error !== null && typeof error === 'object' && typeof error.code === 'string' && typeof error.message === 'string' &&
    (error.status === undefined || typeof error.status === 'number')
}

/**
 * The endpoint named in the manifest's `Link` header (RFC 8288), on the manifest's own origin; a link to
 * another origin is ignored, so a token never goes anywhere but where the manifest came from. Without a
 * usable link: `{basePath}/<name>` on that origin (`/svc`, or `/surf` for a Surf manifest).
 */
export function endpointOf (manifestUrl: string, link: string | undefined, name: EndpointName, basePath: string = DEFAULT_BASE_PATH): string {
  return endpointsOf(manifestUrl, link)[name] ?? `${new URL(manifestUrl).origin}${basePath}/${name}`
}

/** What the manifest response says of where the endpoints are. */
export interface Discovery {
  /** The manifest response's `Link` header. */
  link: string | undefined
  /** Where the endpoints are when the link names none. */
  basePath: string
}

/** Where a Surf service's endpoints are: `/surf/execute`, `/surf/pipeline`. */
export const SURF_BASE_PATH = '/surf'
