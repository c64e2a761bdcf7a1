import type { Client } from '@modelcontextprotocol/client'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { readyApp } from './app.js'
import { tokenAuth } from './auth.js'
import { listening } from './net.js'

/** A command that answers `pong`. */
export function pingRoute (app: FastifyInstance): void {
  app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
}

/**
 * An app with MCP on and layout 0.5.0 (channels are its resources), the suite's bearer tokens as `auth`,
 * `channels`, and `routes`, listening on 127.0.0.1; `options` override any of these (`auth: undefined`:
 * every channel open to anyone). Closed when `t` ends; `url` is the MCP endpoint's.
 */
export async function mcpChannelsApp (
  t: Test,
  channels: SvcManifestOptions['channels'],
  options: Partial<SvcManifestOptions> = {},
  routes: (app: FastifyInstance) => void = pingRoute,
  serverOptions: FastifyServerOptions = {}
): Promise<{ app: FastifyInstance, url: string }> {
  const app = await readyApp(t, { svc: '0.5.0', mcp: true, auth: tokenAuth, channels, ...options }, routes, serverOptions)
  return { app, url: `${await listening(t, app)}/mcp` }
}

/** The URIs of the `notifications/resources/updated` a (v2) client receives, as they come. */
export function updatesOf (client: Client): string[] {
  const uris: string[] = []
  client.setNotificationHandler('notifications/resources/updated', (notification) => { uris.push(notification.params.uri) })
  return uris
}
