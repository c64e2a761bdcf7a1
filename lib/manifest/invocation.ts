/**
 * The invocation wire format (docs/invoke.md), shared by the plugin's endpoints, its MCP tools, the client and
 * the CLI: the envelopes of execute and pipeline, their error codes, and how clients find the endpoints
 * (the manifest's `Link` relations and the default base path).
 */

/**
 * Request headers of the caller's connection, not of the request: never handed on to an inner command
 * call or to the MCP handler, and never params.
 */
export const CONNECTION_HEADERS: readonly string[] = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']

/** Besides those of the connection, what describes the caller's own body: an inner call sends its own. */
export const ENTITY_HEADERS: readonly string[] = ['content-type', 'content-encoding', 'expect', 'accept-encoding']

/** Headers that carry credentials: auth stays auth, so they are never params of a command. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie']

const NOT_PARAMS: ReadonlySet<string> = new Set([...CONNECTION_HEADERS, ...ENTITY_HEADERS, ...CREDENTIAL_HEADERS])

/**
 * Whether a header a route's `schema.headers` declares is a param of its command: not one of the
 * connection, the entity or the credentials (`authorization`, `cookie`), nor a `proxy-*` one. Any case.
 */
export function isHeaderParam (name: string): boolean {
  const lower = name.toLowerCase()
  return !NOT_PARAMS.has(lower) && !isProxyHeader(lower)
}

/** A `proxy-*` request header: for the proxy in between, never handed on nor a param. Lower-case names. */
export function isProxyHeader (name: string): boolean {
  return name.startsWith('proxy-')
}

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
  ui: 'svc-ui',
  /** With `discovery` on: RFC 9727's API catalog, and `/llms.txt`. */
  apiCatalog: 'api-catalog',
  llmsTxt: 'describedby'
} as const

/** The endpoints a client reaches by name: each is `{basePath}/<name>` unless the `Link` header names it. */
export type EndpointName = 'execute' | 'pipeline' | 'events' | 'channels'

/** One entry of a `Link` header: its target as written, and its relation types. */
export interface Link {
  target: string
  rels: string[]
}

const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i

/** Each `<target>; rel="a b"` of a Link header (RFC 8288), relation types lower-cased. */
export function parseLinks (header: string): Link[] {
  const links: Link[] = []
  for (const [, target, params] of header.matchAll(LINK)) {
    const rel = REL.exec(params)
    if (rel === null) continue
    links.push({ target, rels: (rel[1] ?? rel[2]).toLowerCase().split(/\s+/).filter((name) => name !== '') })
  }
  return links
}

/**
 * The endpoints the manifest response's `Link` header names, resolved against the manifest's URL and kept
 * only on its origin, so a token is never sent anywhere else; the first usable link of each relation wins.
 * What it does not name is absent: where the reader looks then is its own choice (client and page alike).
 */
export function endpointsOf (manifestUrl: string, link: string | null | undefined): Partial<Record<EndpointName, string>> {
  const origin = new URL(manifestUrl).origin
  const named: Partial<Record<EndpointName, string>> = {}
  for (const { target, rels } of parseLinks(link ?? '')) {
    if (!URL.canParse(target, manifestUrl)) continue
    const url = new URL(target, manifestUrl)
    if (url.origin !== origin) continue
    for (const name of ENDPOINT_NAMES) {
      if (named[name] === undefined && rels.includes(LINK_RELATIONS[name])) named[name] = url.href
    }
  }
  return named
}

const ENDPOINT_NAMES: readonly EndpointName[] = ['execute', 'pipeline', 'events', 'channels']

/** Where the channel streams are when the `Link` header names none: beside the events stream. */
export function channelsBeside (events: string): string {
  return new URL('channels', events).href
}

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
  429: 'RATE_LIMITED',
  504: 'TIMEOUT'
}

/** The envelope code for a route's HTTP status: the table of docs/invoke.md#error-codes, else `COMMAND_FAILED` (4xx) or `INTERNAL_ERROR`; `TIMEOUT` is a deadline that passed (the plugin's, or a route's own 504). */
export function codeOfStatus (status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'COMMAND_FAILED')
}
