import type { ReadResourceResult, ResourceTemplateType, Server } from '@modelcontextprotocol/server'
import { codedError, INVALID_PARAMS, toolTitleOf } from './tools.js'

/** The media type of a channel resource: `{ version, state }` as JSON. */
export const CHANNEL_MIME_TYPE = 'application/json'

/**
 * The JSON-RPC error of a read or a subscription that the watch rule refuses (DESIGN §9): a code of the
 * range JSON-RPC leaves to servers, since neither JSON-RPC nor MCP has one for "not allowed".
 */
export const REFUSED = -32003

/** `svc://<channel>/<key>`: channel names have no `/`; the key is percent-encoded, as RFC 6570 expands `{key}`. */
const CHANNEL_URI = /^svc:\/\/([^/]+)\/(.+)$/s

/** One key of one channel. */
export interface ChannelAddress {
  channel: string
  key: string
}

/** Why a resource may not be read or followed: a JSON-RPC error. */
export interface Refusal {
  code: number
  message: string
  data?: { uri: string }
}

/** A resource template per channel, in declaration order: `svc://<channel>/{key}`. */
export function channelTemplates (channels: ReadonlyMap<string, { description: string }>): ResourceTemplateType[] {
  return [...channels].map(([name, { description }]) => ({
    uriTemplate: `svc://${name}/{key}`,
    name,
    title: toolTitleOf(name),
    description,
    mimeType: CHANNEL_MIME_TYPE
  }))
}

/** The channel key `uri` names, or the refusal of a URI that names none (MCP's "resource not found"). */
export function channelAddressOf (uri: unknown, channels: ReadonlyMap<string, unknown>): ChannelAddress | Refusal {
  const found = typeof uri === 'string' ? CHANNEL_URI.exec(uri) : null
  const notFound: Refusal = {
    code: INVALID_PARAMS,
    message: `Resource not found: ${JSON.stringify(uri)} names no channel key (svc://<channel>/<key>; channels: ${[...channels.keys()].join(', ')}).`,
    data: { uri: String(uri) }
  }
  if (found === null || !channels.has(found[1])) return notFound
  // decodeURIComponent refuses what is not UTF-8, so a key it returns is well formed, and `.+` makes it non-empty.
  try {
    return { channel: found[1], key: decodeURIComponent(found[2]) }
  } catch {
    return notFound
  }
}

export function isRefusal (value: ChannelAddress | Refusal): value is Refusal {
  return 'code' in value
}

/** Reads one channel resource for the request at hand, after the watch check; a refusal is thrown as its JSON-RPC error. */
export type ReadChannel = (uri: string) => Promise<ReadResourceResult>

/**
 * Channels as resources on `server`: no fixed resources (a channel has a key per instance, a cart per
 * user), a template per channel, and `resources/read`.
 */
export function addChannelResources (server: Server, templates: ResourceTemplateType[], read: ReadChannel): void {
  server.setRequestHandler('resources/list', () => ({ resources: [] }))
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: templates }))
  server.setRequestHandler('resources/read', async (request) => await read(request.params.uri))
}

/** The result of `resources/read`: `{ version, state }` as JSON text. */
export function channelReadResult (uri: string, state: { version: number, state: unknown }): ReadResourceResult {
  return { contents: [{ uri, mimeType: CHANNEL_MIME_TYPE, text: JSON.stringify(state) }] }
}

/** A refusal as the error the SDK answers with its code. */
export function refusalError ({ code, message, data }: Refusal): Error {
  return codedError(code, message, data)
}

/** Follows one channel key: calls `onPublish` on each publish; resolves once subscribed, to the function that stops. */
export type FollowChannel = (channel: string, key: string, onPublish: () => void) => Promise<() => void>

interface Followed {
  streams: number
  stop: Promise<() => void>
}

/**
 * The channel keys that open `subscriptions/listen` streams follow. The SDK hands each update on its one
 * bus to every stream that asked for its URI, so a URI is followed once however many streams hold it:
 * two streams on one key do not each get every update twice.
 */
export class ResourceFollowers {
  private readonly followed = new Map<string, Followed>()

  constructor (private readonly follow: FollowChannel, private readonly updated: (uri: string) => void) {}

  /**
   * One stream holds each of `resources` from now: `ready` resolves once every one is followed (rejects
   * when one cannot be), `release` lets them go, whatever came of `ready`.
   */
  hold (resources: ReadonlyMap<string, ChannelAddress>): { ready: Promise<unknown>, release: () => void } {
    const ready = Promise.all([...resources].map(([uri, address]) => this.take(uri, address)))
    return { ready, release: () => { for (const uri of resources.keys()) this.release(uri) } }
  }

  private take (uri: string, { channel, key }: ChannelAddress): Promise<unknown> {
    let followed = this.followed.get(uri)
    if (followed === undefined) {
      followed = { streams: 0, stop: this.follow(channel, key, () => this.updated(uri)) }
      this.followed.set(uri, followed)
    }
    followed.streams++
    return followed.stop
  }

  private release (uri: string): void {
    const followed = this.followed.get(uri) as Followed
    if (--followed.streams > 0) return
    this.followed.delete(uri)
    // A follow that failed has nothing to stop; its failure was the answer to the listen request.
    followed.stop.then((stop) => stop(), () => {})
  }
}
