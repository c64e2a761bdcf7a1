import type { CallToolResult, classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server'

/** The revision whose `tools/call` and `tools/list` the endpoint answers itself: one request, one JSON answer. */
export const DIRECT_REVISION = '2026-07-28'

/** The keys of the per-request envelope (`params._meta`) a 2026-07-28 client sends with every request. */
const ENVELOPE_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities'])
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const CALL_KEYS = new Set(['name', 'arguments', '_meta'])
const LIST_KEYS = new Set(['_meta'])
const SESSION_CALL_KEYS = new Set(['name', 'arguments'])
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

/** What the SDK decides a request is: its own classifier and media-type check, the ones its handlers run. */
export interface DirectCallSdk {
  classifyInboundRequest: typeof classifyInboundRequest
  isJsonContentType: typeof isJsonContentType
}

type Headers = Record<string, string | string[] | undefined>

/** A tool call to answer without the SDK's per-request work: its JSON-RPC id, the command and its arguments. */
export interface DirectCall {
  id: string | number
  command: string
  args: Record<string, unknown>
}

/** A 2026-07-28 request answered directly: a tool call, or the list of tools. */
export type DirectRequest = DirectCall & { method: 'tools/call' } | { method: 'tools/list', id: string | number }

/**
 * The body as a 2026-07-28 `tools/call` of a known tool, or `tools/list`, that the SDK would serve as it is,
 * with a JSON answer; else undefined, and the SDK serves the request. Only the plainest form is taken: the
 * JSON-RPC request with nothing beyond `name`, `arguments` (a call) and the envelope (no progress token, no
 * cursor, no request state, no task: nothing that could make the SDK answer with a stream or do anything
 * besides the tool), the standard headers present and agreeing with the body, and the SDK's own classifier
 * finding it a well-formed request of that revision. Anything else, valid or not, is left to the SDK, which
 * answers it (or refuses it) as it always has.
 */
export function directRequestOf (sdk: DirectCallSdk, body: unknown, headers: Headers, byTool: ReadonlyMap<string, string>): DirectRequest | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS) || body.jsonrpc !== '2.0') return undefined
  const { id, method, params } = body
  if (!isId(id) || !isPlainObject(params)) return undefined
  const envelope = params._meta
  if (!isPlainObject(envelope) || !onlyKeys(envelope, ENVELOPE_KEYS)) return undefined
  if (headers['mcp-protocol-version'] !== DIRECT_REVISION || headers['mcp-method'] !== method) return undefined
  let request: DirectRequest
  if (method === 'tools/call') {
    const call = onlyKeys(params, CALL_KEYS) && headers['mcp-name'] === params.name ? callOf(id, params, byTool) : undefined
    if (call === undefined) return undefined
    request = { method, ...call }
  } else if (method === 'tools/list' && onlyKeys(params, LIST_KEYS) && headers['mcp-name'] === undefined) {
    request = { method, id }
  } else {
    return undefined
  }
  return sdk.isJsonContentType(headers['content-type'] as string | undefined) && modernEnvelope(sdk, envelope) ? request : undefined
}

/**
 * The body as a 2025 `tools/call` of a known tool that the SDK's transport would serve as it is, in a
 * session or without one (`name` and `arguments` only: no progress token; a revision `served` in the
 * header, the session's own in a session; both media types accepted; a JSON body), else undefined.
 */
export function legacyCallOf (sdk: DirectCallSdk, body: unknown, headers: Headers, byTool: ReadonlyMap<string, string>, served: (revision: unknown) => boolean): DirectCall | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined
  const { id, params } = body
  if (!isId(id) || !isPlainObject(params) || !onlyKeys(params, SESSION_CALL_KEYS)) return undefined
  const accept = headers.accept
  if (!served(headers['mcp-protocol-version'])) return undefined
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined
  return sdk.isJsonContentType(headers['content-type'] as string | undefined) ? callOf(id, params, byTool) : undefined
}

/** The command a call names, with its arguments (none: no arguments), when the tool is known and they are an object. */
function callOf (id: string | number, params: Record<string, unknown>, byTool: ReadonlyMap<string, string>): DirectCall | undefined {
  const { name, arguments: args = {} } = params
  const command = typeof name === 'string' ? byTool.get(name) : undefined
  return command === undefined || !isPlainObject(args) ? undefined : { id, command, args }
}

/** The classifier's verdicts on the envelopes seen last: a client sends the same one with every request. */
const verdicts = new Map<string, boolean>()
/** Envelopes remembered at most: past that, the verdicts start over. */
export const MAX_VERDICTS = 64

/**
 * Whether the SDK's classifier takes a request with this envelope, and headers that agree with it, as a
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
 * The JSON-RPC answer to a direct request, as the SDK frames a 2026-07-28 result: marked complete, with the
 * server's identity under `_meta`, and for `tools/list` (`cacheable`) the SDK's default cache fields.
 * `result` is the JSON text of an object with at least one key (a tool result has `content`; the list,
 * `tools`): the answer is spliced around it, not parsed and made again.
 */
export function directAnswer (id: string | number, result: string, server: string, cacheable = false): string {
  return answerHead(result, server, cacheable) + answerTail(id)
}

/** The answer to every `tools/list`, as bytes made once: only its id changes from one request to the next. */
export function listAnswer (tools: string, server: string): (id: string | number) => Buffer {
  const head = Buffer.from(answerHead(tools, server, true))
  return (id) => Buffer.concat([head, Buffer.from(answerTail(id))])
}

function answerHead (result: string, server: string, cacheable: boolean): string {
  return `{"result":${result.slice(0, -1)},"resultType":"complete",${cacheable ? CACHE_FIELDS : ''}"_meta":{"${SERVER_INFO}":${server}}},"jsonrpc":"2.0","id":`
}

function answerTail (id: string | number): string {
  return `${JSON.stringify(id)}}`
}

/** What the SDK adds to a cacheable result (`tools/list`) when the server sets no cache hint: its defaults. */
const CACHE_FIELDS = '"ttlMs":0,"cacheScope":"private",'

/** The answer to a 2025 call, as the SDK's transport sends it: one SSE event. */
export function legacyAnswer (id: string | number, result: CallToolResult): string {
  return `event: message\ndata: ${JSON.stringify({ result, jsonrpc: '2.0', id })}\n\n`
}

function isId (id: unknown): id is string | number {
  return typeof id === 'string' || Number.isSafeInteger(id)
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function onlyKeys (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}
