import type { ReadResourceResult, ResourceTemplateType, Server } from '@modelcontextprotocol/server'
import { codedError, INVALID_PARAMS, toolTitleOf } from './tools.js'

/** The media type of a channel resource: `{ version, state }` as JSON. */
export const CHANNEL_MIME_TYPE = 'application/json'

/**
 * The JSON-RPC error of a read or a subscription that the watch rule refuses (docs/realtime.md): a code of the
 * range JSON-RPC leaves to servers, since neither JSON-RPC nor MCP has one for "not allowed".
 */
export const REFUSED = -32003

/**
 * `svc://<channel>/<key>`: channel names have no `/`; the key is percent-encoded, as RFC 6570 expands `{key}`.
 * The scheme is matched in any case, as RFC 3986 has it.
 */
const CHANNEL_URI = /^svc:\/\/([^/]+)\/(.+)$/is

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
  if (found === null) return notFound
  // decodeURIComponent refuses what is not UTF-8, so a key it returns is well formed, and `.+` makes it non-empty.
  // The channel is decoded too: every spelling of one key is that key.
  try {
    const channel = decodeURIComponent(found[1])
    return channels.has(channel) ? { channel, key: decodeURIComponent(found[2]) } : notFound
  } catch {
    return notFound
  }
}

/** The one identity of a channel key, whatever the URI that named it. */
export function addressId ({ channel, key }: ChannelAddress): string {
  return JSON.stringify([channel, key])
}

/**
 * The distinct keys of `uris` (already resolved to `addresses`, in the same order), each under the URI that
 * first named it.
 */
export function distinctKeys (uris: readonly string[], addresses: readonly ChannelAddress[]): Map<string, { uri: string, address: ChannelAddress }> {
  const keys = new Map<string, { uri: string, address: ChannelAddress }>()
  addresses.forEach((address, index) => {
    const id = addressId(address)
    if (!keys.has(id)) keys.set(id, { uri: uris[index], address })
  })
  return keys
}

/** The invalid-params error of a listen or a session that would follow more than `max` distinct keys. */
export function tooManyKeys (max: number, asked: number): Refusal {
  return {
    code: INVALID_PARAMS,
    message: `Too many channel keys: at most ${max} distinct keys per listen or session (mcp.maxSubscriptions); this would follow ${asked}.`
  }
}

export function isRefusal (value: ChannelAddress | Refusal): value is Refusal {
  return 'code' in value
}

/**
 * Reads one channel resource for the request at hand (`request`: the HTTP request it came in), after the
 * watch check; a refusal is thrown as its JSON-RPC error.
 */
export type ReadChannel = (uri: string, request?: Request) => Promise<ReadResourceResult>

/**
 * Channels as resources on `server`: no fixed resources (a channel has a key per instance, a cart per
 * user), a template per channel, and `resources/read`.
 */
export function addChannelResources (server: Server, templates: ResourceTemplateType[], read: ReadChannel): void {
  server.setRequestHandler('resources/list', () => ({ resources: [] }))
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: templates }))
  server.setRequestHandler('resources/read', async (request, context) => await read(request.params.uri, context.http?.req))
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
  /** What to call on a publish, each once however many holds it has. */
  tags: Map<string, { holds: number, onPublish: () => void }>
  stop: Promise<() => void>
}

/**
 * The channel keys that open listens and sessions follow. A key is followed once per instance, however
 * many hold it and however its URI was spelled; on a publish, each tag holding it is called once. A listen
 * stream's tag is its URI (the SDK hands one update to every stream that asked for that URI, so two
 * streams on one URI share one call); a session's tag is the session.
 */
export class ResourceFollowers {
  private readonly followed = new Map<string, Followed>()

  constructor (private readonly follow: FollowChannel) {}

  /**
   * `tag` holds `address` from now: `ready` resolves once it is followed (rejects when it cannot be),
   * `release` (called once) lets it go, whatever came of `ready`.
   */
  hold (address: ChannelAddress, tag: string, onPublish: () => void): { ready: Promise<unknown>, release: () => void } {
    const id = addressId(address)
    let followed = this.followed.get(id)
    if (followed === undefined) {
      const tags: Followed['tags'] = new Map()
      followed = { tags, stop: this.follow(address.channel, address.key, () => { for (const tag of tags.values()) tag.onPublish() }) }
      this.followed.set(id, followed)
    }
    const held = followed.tags.get(tag)
    if (held === undefined) followed.tags.set(tag, { holds: 1, onPublish })
    else held.holds++
    return { ready: followed.stop, release: () => this.release(id, tag) }
  }

  private release (id: string, tag: string): void {
    const followed = this.followed.get(id) as Followed
    const held = followed.tags.get(tag) as { holds: number }
    if (--held.holds === 0) followed.tags.delete(tag)
    if (followed.tags.size > 0) return
    this.followed.delete(id)
    // A follow that failed has nothing to stop; its failure was the answer to the listen request.
    followed.stop.then((stop) => stop(), () => {})
  }
}
