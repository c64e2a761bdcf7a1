import { DEFAULT_BASE_PATH, endpointsOf, type CommandErrorBody, type EndpointName, type PipelineStepResult } from '../manifest/invocation.js'
import { ManifestClientError } from './errors.js'
import { exchange, type HttpRequest } from './http.js'

/** Options of one call. */
export interface InvokeOptions {
  /**
   * Sent as `Authorization: <scheme> <token>`, the scheme the manifest's `auth` names (`Bearer` when it names
   * none). Only to the origin of the manifest (or the explicit `invokeUrl`).
   */
  token?: string
  signal?: AbortSignal
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
  execute<T = unknown>(command: string, params?: Record<string, unknown>, options?: InvokeOptions): Promise<T>
  pipeline (steps: PipelineStep[], options?: PipelineOptions): Promise<PipelineResult>
}

interface InvokerSetup {
  /** The client's `fetch`, `timeout` and `maxBodySize`. */
  http: Pick<HttpRequest, 'fetch' | 'timeout' | 'maxBodySize'>
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

  /** The envelope the endpoint answered, whatever its status; anything else is `SVC_CLIENT_INVALID_RESPONSE`. */
  async function post (name: EndpointName, body: unknown, options: InvokeOptions): Promise<Envelope> {
    const url = await endpoint(name)
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    if (options.token !== undefined) headers.authorization = `${await setup.scheme()} ${options.token}`
    // A redirect is not followed: the body and the token go to the endpoint named, or nowhere.
    const request: HttpRequest = { ...setup.http, method: 'POST', headers, body: JSON.stringify(body), signal: options.signal, followRedirects: false }
    const { status, text } = await exchange(url, request, async (response) => ({ status: response.status, text: await response.text() }))
    // A redirect is no answer, whatever its body says.
    const envelope = status >= 300 && status < 400 ? undefined : parseEnvelope(text, name, status)
    if (envelope === undefined) {
      throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `POST ${url} answered ${status} without an envelope { ok, … }: is the plugin's invoke option on?`, { status })
    }
    return envelope
  }

  return {
    async execute<T> (command: string, params: Record<string, unknown> = {}, options: InvokeOptions = {}): Promise<T> {
      const envelope = await post('execute', { command, params }, options)
      if (envelope.error !== undefined) throw new CommandError(envelope.error)
      // Bytes that are neither JSON nor text come as base64: handed over as a Blob with their media type.
      if (envelope.encoding === 'base64') return new Blob([Buffer.from(envelope.result as string, 'base64')], { type: envelope.contentType }) as T
      return envelope.result as T
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
