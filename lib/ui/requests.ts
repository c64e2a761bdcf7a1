/*
 * The requests the human page makes, without a DOM: where the endpoints are (the manifest response's
 * `Link` header), and a call written out as `curl` and as a pipeline step for a visitor to copy.
 */
import { DEFAULT_BASE_PATH, LINK_RELATIONS } from '../manifest/invocation.js'

export interface Endpoints {
  /** Undefined when the service names endpoints but not this one: `invoke: false`. */
  execute?: string
  pipeline?: string
  events: string
  /** `{basePath}/channels`, beside the events stream: the key and channel follow it. */
  channels: string
}

/**
 * The endpoints named by the manifest response's `Link` header (RFC 8288), resolved against the manifest's
 * URL and kept only on its origin, so a token is never sent anywhere else. Without a Link header (a proxy
 * that drops it, a service that serves its manifest some other way): the plugin's default base path.
 */
export function endpointsOf (manifestUrl: string, link: string | null): Endpoints {
  const origin = new URL(manifestUrl).origin
  const fallback = (name: string): string => `${origin}${DEFAULT_BASE_PATH}/${name}`
  if (link === null) {
    return { execute: fallback('execute'), pipeline: fallback('pipeline'), events: fallback('events'), channels: fallback('channels') }
  }
  const named = new Map<string, string>()
  for (const { target, rels } of parseLinks(link)) {
    if (!URL.canParse(target, manifestUrl)) continue
    const url = new URL(target, manifestUrl)
    if (url.origin !== origin) continue
    for (const rel of rels) if (!named.has(rel)) named.set(rel, url.href)
  }
  const events = named.get(LINK_RELATIONS.events) ?? fallback('events')
  const endpoints: Endpoints = { events, channels: events.replace(/\/events$/, '/channels') }
  const execute = named.get(LINK_RELATIONS.execute)
  const pipeline = named.get(LINK_RELATIONS.pipeline)
  if (execute !== undefined) endpoints.execute = execute
  if (pipeline !== undefined) endpoints.pipeline = pipeline
  return endpoints
}

const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i

/** Each `<target>; rel="a b"` of a Link header, relation types lower-cased. */
export function parseLinks (header: string): Array<{ target: string, rels: string[] }> {
  const links: Array<{ target: string, rels: string[] }> = []
  for (const [, target, params] of header.matchAll(LINK)) {
    const rel = REL.exec(params)
    if (rel === null) continue
    links.push({ target, rels: (rel[1] ?? rel[2]).toLowerCase().split(/\s+/).filter((name) => name !== '') })
  }
  return links
}

/** The body of `POST execute`. */
export function executeBody (command: string, params: Record<string, unknown>): { command: string, params: Record<string, unknown> } {
  return { command, params }
}

/**
 * The call as a shell command; `scheme` (`Bearer`, or the manifest's own) when a token goes with it. The
 * token stays out of it (`$TOKEN`), so what is copied or shown on a shared screen never carries it.
 */
export function curlOf (url: string, body: unknown, scheme?: string): string {
  const lines = [`curl -s ${shellQuote(url)}`, "-H 'content-type: application/json'"]
  if (scheme !== undefined) lines.push(`-H "authorization: ${scheme} $TOKEN"`)
  lines.push(`-d ${shellQuote(JSON.stringify(body))}`)
  return lines.join(' \\\n  ')
}

/** The same call as a step of `POST pipeline`'s `steps`. */
export function pipelineStepOf (command: string, params: Record<string, unknown>): string {
  return JSON.stringify({ command, params }, null, 2)
}

/** Single quotes keep everything literal in a POSIX shell; a quote itself is closed, escaped and reopened. */
export function shellQuote (text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`
}

/** `?events=a,b` for a choice of events; nothing when every event is chosen (the stream's default). */
export function eventsQuery (chosen: readonly string[], all: readonly string[]): string {
  if (chosen.length === all.length) return ''
  return `?events=${encodeURIComponent(chosen.join(','))}`
}

/** The stream of one key of a channel. */
export function channelUrl (channels: string, channel: string, key: string): string {
  return `${channels}/${encodeURIComponent(channel)}/${encodeURIComponent(key)}`
}
