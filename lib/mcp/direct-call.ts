import type { CallToolResult, classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server'

/** The revision whose `tools/call` the endpoint answers itself: one request, one JSON answer, no session. */
export const DIRECT_REVISION = '2026-07-28'

/** The keys of the per-request envelope (`params._meta`) a 2026-07-28 client sends with every request. */
const ENVELOPE_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities'])
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta'])
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

/** What the SDK decides a request is: its own classifier and media-type check, the ones its handler runs. */
export interface DirectCallSdk {
  classifyInboundRequest: typeof classifyInboundRequest
  isJsonContentType: typeof isJsonContentType
}

/** A tool call to answer without the SDK's per-request server: its JSON-RPC id, the command and its arguments. */
export interface DirectCall {
  id: string | number
  command: string
  args: Record<string, unknown>
}

/**
 * The body as a 2026-07-28 `tools/call` of a known tool that the SDK would serve as it is, with a JSON
 * answer; else undefined, and the SDK serves the request. Only the plainest form is taken: the JSON-RPC
 * request with nothing beyond `name`, `arguments` and the envelope (no progress token, no request state, no
 * task: nothing that could make the SDK answer with a stream or run anything besides the tool), the
 * standard headers present and agreeing with the body, and the SDK's own classifier finding it a
 * well-formed modern request of that revision. Anything else, valid or not, is left to the SDK, which
 * answers it (or refuses it) as it always has.
 */
export function directCallOf (sdk: DirectCallSdk, body: unknown, headers: Record<string, string | string[] | undefined>, byTool: ReadonlyMap<string, string>): DirectCall | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined
  const { id, params } = body
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined
  if (!isPlainObject(params) || !onlyKeys(params, PARAMS_KEYS)) return undefined
  const { name, arguments: args = {}, _meta: envelope } = params
  const command = typeof name === 'string' ? byTool.get(name) : undefined
  if (command === undefined || !isPlainObject(args) || !isPlainObject(envelope) || !onlyKeys(envelope, ENVELOPE_KEYS)) return undefined
  const protocolVersionHeader = headers['mcp-protocol-version']
  const mcpMethodHeader = headers['mcp-method']
  const mcpNameHeader = headers['mcp-name']
  if (protocolVersionHeader !== DIRECT_REVISION || mcpMethodHeader !== 'tools/call' || mcpNameHeader !== name) return undefined
  if (!sdk.isJsonContentType(headers['content-type'] as string | undefined) || !modernEnvelope(sdk, envelope)) return undefined
  return { id: id as string | number, command, args }
}

/** The classifier's verdicts on the envelopes seen last: a client sends the same one with every request. */
const verdicts = new Map<string, boolean>()
/** Envelopes remembered at most: past that, the verdicts start over. */
export const MAX_VERDICTS = 64

/**
 * Whether the SDK's classifier takes a `tools/call` with this envelope, and headers that agree with it, as a
 * well-formed request of the direct revision. With everything else checked already, its verdict depends on
 * the envelope alone: asked once per envelope, with a request of that envelope, and remembered.
 */
function modernEnvelope (sdk: DirectCallSdk, envelope: Record<string, unknown>): boolean {
  const key = JSON.stringify(envelope)
  let verdict = verdicts.get(key)
  if (verdict === undefined) {
    const body = { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'tool', _meta: envelope } }
    const route = sdk.classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: DIRECT_REVISION, mcpMethodHeader: 'tools/call', mcpNameHeader: 'tool', body })
    verdict = route.kind === 'modern' && route.classification.revision === DIRECT_REVISION
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear()
    verdicts.set(key, verdict)
  }
  return verdict
}

/**
 * The JSON-RPC answer to a direct call, as the SDK frames a 2026-07-28 result: the tool result marked
 * complete, with the server's identity under `_meta`.
 */
export function directAnswer (id: string | number, result: CallToolResult, server: { name: string, version: string }): object {
  return { result: { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: server } }, jsonrpc: '2.0', id }
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function onlyKeys (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}
