import type { FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_CHANNEL_NOT_FOUND, FST_SVC_FORBIDDEN } from '../errors.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { isChannelKey } from '../realtime/addressing.js'
import type { SvcChannelAuthorize } from '../option-types.js'
import type { WatchRule } from './auth.js'
import type { AddPluginRoute } from './endpoint.js'
import { streamRoute, type StreamRouteDependencies } from './events.js'

export interface WatchableChannel {
  authorize?: SvcChannelAuthorize
}

/**
 * `GET {basePath}/channels/:channel/:key` (layout 0.5.0): a Server-Sent Events stream of one channel
 * key's state, the latest first. Who may watch: the channel's `authorize` when it has one (only `true`
 * lets the subscriber in); otherwise, with `auth`, the subscriber whose subject is the key; without
 * `auth`, everyone. An `authorize` that throws is the app's error: its own status when it has one
 * (e.g. 403 or 404 from @fastify/sensible), else 500; either way no stream opens.
 */
export function registerChannelsRoute (route: AddPluginRoute, channels: ReadonlyMap<string, WatchableChannel>, deps: StreamRouteDependencies): void {
  route({
    ...streamRoute(deps),
    url: `${deps.basePath}/channels/:channel/:key`,
    rel: LINK_RELATIONS.channels,
    handler: async function svcChannelStream (request: FastifyRequest, reply: FastifyReply) {
      const { channel, key } = request.params as { channel: string, key: string }
      const entry = channels.get(channel)
      if (entry === undefined || !isChannelKey(key)) throw new FST_SVC_CHANNEL_NOT_FOUND(`No channel "${channel}" with key ${JSON.stringify(key)}.`)
      const credential = deps.credentialOf(request)
      if (!(await mayWatch(entry, credential, key, request, deps.watch))) {
        throw new FST_SVC_FORBIDDEN(`Not allowed to watch channel "${channel}" key ${JSON.stringify(key)}.`)
      }
      const realtime = await deps.realtime()
      await realtime.openChannel(request, reply, channel, key)
    }
  })
}

/**
 * Who may watch a channel key (docs/realtime.md), on its stream and as an MCP resource: the channel's `authorize`
 * when it has one (only `true` lets the subscriber in); otherwise the plugin's watch rule: with `auth`, the
 * subscriber whose subject is the key; without `auth`, everyone. With `auth`, the caller has already made
 * sure a valid credential came.
 */
export async function mayWatch (channel: WatchableChannel, credential: unknown, key: string, request: FastifyRequest, rule: WatchRule): Promise<boolean> {
  if (channel.authorize !== undefined) return (await channel.authorize(credential, key, request)) === true
  if (rule.authenticate === undefined) return true
  return rule.subjectOf(credential) === key
}
