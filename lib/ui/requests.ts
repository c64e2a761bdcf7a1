/*
 * The requests the human page makes, without a DOM: where the endpoints are (the manifest response's
 * `Link` header), and a call written out as `curl` and as a pipeline step for a visitor to copy.
 */
import { channelsBeside, DEFAULT_BASE_PATH, endpointsOf, type EndpointName } from '../manifest/invocation.js'

export interface Endpoints {
  /** Undefined when the service names endpoints but not this one: `invoke: false`. */
  execute?: string
  pipeline?: string
  events: string
  /** The base of the channel streams (`svc-channels`, else beside the events stream): the channel and key follow it. */
  channels: string
}

/**
 * Where the page's requests go: the endpoints the manifest response's `Link` header names on the manifest's
 * origin (`endpointsOf`, as the client reads them), the channels beside the events stream when it names
 * none. Without a Link header (a proxy that drops it, a service that serves its manifest some other way):
 * the plugin's default base path.
 */
export function pageEndpoints (manifestUrl: string, link: string | null): Endpoints {
  const fallback = (name: EndpointName): string => `${new URL(manifestUrl).origin}${DEFAULT_BASE_PATH}/${name}`
  if (link === null) {
    return { execute: fallback('execute'), pipeline: fallback('pipeline'), events: fallback('events'), channels: fallback('channels') }
  }
  const named = endpointsOf(manifestUrl, link)
  const events = named.events ?? fallback('events')
  const endpoints: Endpoints = { events, channels: named.channels ?? channelsBeside(events) }
  if (named.execute !== undefined) endpoints.execute = named.execute
  if (named.pipeline !== undefined) endpoints.pipeline = named.pipeline
  return endpoints
}

/** The body of `POST execute`; `stream`: ask for a streamed execute (an event stream of frames). */
export function executeBody (command: string, params: Record<string, unknown>, stream = false): { command: string, params: Record<string, unknown>, stream?: true } {
  return stream ? { command, params, stream: true } : { command, params }
}

/**
 * The call as a shell command; `scheme` (`Bearer`, or the manifest's own) when a token goes with it. The
 * token stays out of it (`$TOKEN`), so what is copied or shown on a shared screen never carries it.
 */
export function curlOf (url: string, body: unknown, scheme?: string): string {
  // A streamed call: -N, so that curl prints each frame as it arrives.
  const streamed = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true
  const lines = [`curl -s${streamed ? 'N' : ''} ${shellQuote(url)}`, "-H 'content-type: application/json'"]
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

/** A frame of a streamed execute (docs/long-running.md), as the page reads it. */
export type ExecuteFrame =
  | { type: 'chunk', data: unknown, encoding?: string }
  | { type: 'progress', progress: number, total?: number, message?: string }
  | { type: 'done', result: unknown, encoding?: string, contentType?: string }
  | { type: 'error', error: { code: string, message: string, status: number } }

const FRAME_TYPES = new Set(['chunk', 'progress', 'done', 'error'])

/** The frame an SSE event's data holds; undefined for data that is not one (the page skips it). */
export function executeFrame (data: string): ExecuteFrame | undefined {
  let frame: unknown
  try {
    frame = JSON.parse(data)
  } catch {
    return undefined
  }
  if (typeof frame !== 'object' || frame === null) return undefined
  const { type } = frame as { type?: unknown }
  return typeof type === 'string' && FRAME_TYPES.has(type) ? frame as ExecuteFrame : undefined
}

/** A progress frame in words, beside the bar: `3 of 7 · day 3 of 7`, `40 · copying`, `3`. */
export function progressText ({ progress, total, message }: { progress: number, total?: number, message?: string }): string {
  const count = total === undefined ? String(progress) : `${progress} of ${total}`
  return message === undefined || message === '' ? count : `${count} · ${message}`
}
