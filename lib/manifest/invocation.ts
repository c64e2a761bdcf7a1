/**
 * The invocation wire format (docs/invoke.md), shared by the plugin's endpoints, its MCP tools, the client and
 * the CLI: the envelopes of execute and pipeline, their error codes, and how clients find the endpoints
 * (the manifest's `Link` relations and the default base path).
 */

/** Where execute, pipeline and the streams live when the manifest's `Link` header names none. */
export const DEFAULT_BASE_PATH = '/svc'

/** The `Link` relation of each endpoint the plugin may serve. */
export const LINK_RELATIONS = {
  execute: 'svc-execute',
  pipeline: 'svc-pipeline',
  events: 'svc-events',
  /** Layout 0.5.0: the base of the channel streams, `{target}/{channel}/{key}`. */
  channels: 'svc-channels',
  mcp: 'mcp',
  ui: 'svc-ui'
} as const

/** The error object of a failed command, in execute's envelope and in a pipeline's results. */
export interface CommandErrorBody {
  code: string
  message: string
  status: number
  /** The route's own error `code` (`FST_ERR_VALIDATION`, `FST_SVC_UNAUTHORIZED`, …) when it sent one. */
  cause?: string
}

/** A command that succeeded. */
export interface CommandSuccess {
  ok: true
  result: unknown
  /** Present when the route answered a body that is neither JSON nor text: `result` is then base64. */
  encoding?: 'base64'
  contentType?: string
}

export interface CommandFailure {
  ok: false
  error: CommandErrorBody
}

/** What a command call comes to: execute's envelope, less its `requestId`. */
export type CommandOutcome = CommandSuccess | CommandFailure

/** One entry of a pipeline's `results`. */
export type PipelineStepResult = (CommandSuccess | CommandFailure) & { command: string }

const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_PARAMS',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED'
}

/** The envelope code for a route's HTTP status: the table of docs/invoke.md#error-codes, else `COMMAND_FAILED` (4xx) or `INTERNAL_ERROR`. */
export function codeOfStatus (status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'COMMAND_FAILED')
}
