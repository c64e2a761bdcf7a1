import type { CallToolResult, Server, ServerCapabilities, Tool, ToolAnnotations } from '@modelcontextprotocol/server'
import type { CommandErrorBody, CommandSuccess } from '../manifest/invocation.js'
import type { ManifestHints } from '../manifest/types.js'
import type { Progress } from '../util/call-control.js'
import type { McpSdk } from './sdk.js'

/** JSON-RPC's code for invalid params, which MCP uses for an unknown tool. */
export const INVALID_PARAMS = -32602

/** What MCP clients accept as a tool name (Claude among them). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** A command's tool name: its name with `.` replaced by `_` (`cart.add` → `cart_add`). */
export function toolNameOf (command: string): string {
  return command.replaceAll('.', '_')
}

/** A command's title for people: its name in words, capitalized (`cart.add` → `Cart add`). */
export function toolTitleOf (command: string): string {
  const words = command.replace(/[._-]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * Each tool name and the command it calls, or the problems found: every name that clients would refuse and
 * every clash of two commands on one tool name, all of them at once.
 */
export function toolNames (commands: Iterable<string>): { byTool: Map<string, string>, invalid: string[], clashes: string[] } {
  const byTool = new Map<string, string>()
  const invalid: string[] = []
  const clashes: string[] = []
  for (const command of commands) {
    const tool = toolNameOf(command)
    const other = byTool.get(tool)
    if (!TOOL_NAME.test(tool)) invalid.push(`command "${command}" gives the tool name "${tool}", which is not 1 to 64 letters, digits, "_" or "-"`)
    else if (other !== undefined) clashes.push(`commands "${other}" and "${command}" are both the tool "${tool}"`)
    else byTool.set(tool, command)
  }
  return { byTool, invalid, clashes }
}

/** What each HTTP method says of a route that declares no hints. */
const METHOD_HINTS: Record<string, { readOnly: boolean, idempotent: boolean }> = {
  GET: { readOnly: true, idempotent: true },
  HEAD: { readOnly: true, idempotent: true },
  PUT: { readOnly: false, idempotent: true },
  DELETE: { readOnly: false, idempotent: true }
}

/**
 * MCP's four behaviour hints, all of them set (the spec's defaults assume the worst: a tool without
 * annotations is destructive and reaches the open world). Read-only and idempotent come from the
 * command's `hints` when declared, else from its method (GET/HEAD read-only and idempotent, PUT and DELETE
 * idempotent, the others neither); only a DELETE is destructive. `method` is unknown to the stdio bridge,
 * which reads a remote manifest: there a command that may have side effects is taken as destructive, since
 * nothing says it is not. Every command acts on its own service only: `openWorldHint` is false.
 */
export function annotationsOf (hints: ManifestHints | undefined, method?: string): ToolAnnotations {
  const byMethod = method === undefined ? undefined : METHOD_HINTS[method]
  const readOnlyHint = hints?.sideEffects === undefined ? byMethod?.readOnly ?? false : !hints.sideEffects
  const idempotentHint = hints?.idempotent ?? byMethod?.idempotent ?? false
  const destructiveHint = !readOnlyHint && (method === undefined || method === 'DELETE')
  return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false }
}

/**
 * The tool result of a command's outcome: its result as JSON text, plus `structuredContent` when it is an
 * object; images and audio as MCP's own content; a failure as `isError` with execute's error object.
 */
export function toolResultOf (outcome: CallOutcome): CallToolResult {
  if (!outcome.ok) return { content: [{ type: 'text', text: JSON.stringify(outcome.error) }], isError: true }
  const { result, encoding, contentType = '' } = outcome
  if (encoding === 'base64') {
    const data = result as string
    if (contentType.startsWith('image/')) return { content: [{ type: 'image', data, mimeType: contentType }] }
    if (contentType.startsWith('audio/')) return { content: [{ type: 'audio', data, mimeType: contentType }] }
    return { content: [{ type: 'text', text: JSON.stringify({ encoding, contentType, result }) }] }
  }
  const text: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(result) }] }
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) text.structuredContent = result as Record<string, unknown>
  return text
}

/**
 * What a tool call comes to: a command's outcome (docs/invoke.md), or, for the stdio bridge, a failure to get
 * one, which has no HTTP status.
 */
export type CallOutcome = CommandSuccess | { ok: false, error: Omit<CommandErrorBody, 'status'> & { status?: number } }

export interface ToolServerInfo {
  name: string
  version: string
  instructions?: string
}

/**
 * Calls a command with a tool's arguments. `request`: the HTTP request the call came in, when the transport
 * is HTTP; `call`: what the SDK gives the call (docs/mcp.md#progress-and-cancellation).
 */
export type CallCommand = (command: string, args: Record<string, unknown>, request: Request | undefined, call: ToolCall) => Promise<CallToolResult>

/** What the SDK gives one tool call: its cancellation, and where its progress goes when the client asked for it. */
export interface ToolCall {
  /**
   * Aborts when the client cancels the call: `notifications/cancelled` in a session (or on stdio), the
   * exchange closed on the stateless path.
   */
  signal: AbortSignal
  /** Sends a `notifications/progress` for the call; only when the request carried a progress token. */
  progress?: (params: Progress) => void
}

/**
 * The tools a request may see, and the command each calls: over HTTP, the view of the request's credential
 * (hidden commands, DESIGN §15); `request` is undefined on stdio.
 */
export type ToolsOf = (request: Request | undefined) => { tools: Tool[], byTool: ReadonlyMap<string, string> }

/**
 * An MCP server that offers `tools` and answers each call with `call`. The SDK's low-level `Server`: its
 * `McpServer` takes tool schemas as zod objects, and these are JSON Schemas already. `capabilities`: what
 * else the server offers (its handlers are the caller's to add).
 */
export function createToolServer (sdk: McpSdk, info: ToolServerInfo, toolsOf: ToolsOf, call: CallCommand, capabilities: ServerCapabilities = {}): Server {
  const server = new sdk.Server({ name: info.name, version: info.version }, {
    capabilities: { ...capabilities, tools: {} },
    instructions: info.instructions,
    jsonSchemaValidator: sdk.jsonSchemaValidator
  })
  server.setRequestHandler('tools/list', (_request, context) => ({ tools: toolsOf(context.http?.req).tools }))
  server.setRequestHandler('tools/call', async (request, context) => {
    const { name, arguments: args = {} } = request.params
    const command = toolsOf(context.http?.req).byTool.get(name)
    // Thrown with a JSON-RPC code, the SDK answers it as that error, as the spec has it for an unknown tool.
    if (command === undefined) throw codedError(INVALID_PARAMS, `Unknown tool "${name}": tools/list names the tools.`)
    const token = context.mcpReq._meta?.progressToken
    const progress = token === undefined
      ? undefined
      : (params: Progress) => {
          // A client gone or a stream closed drops the notification; the call's signal says the rest.
          context.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...params } }).catch(() => {})
        }
    return await call(command, args, context.http?.req, { signal: context.mcpReq.signal, progress })
  })
  return server
}

/** An error the SDK answers as the JSON-RPC error `code`, with `data` when given. */
export function codedError (code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data })
}
