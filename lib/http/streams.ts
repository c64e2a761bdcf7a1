import type { FastifyInstance } from 'fastify'
import { hasAboutAndChannels, type Config } from '../options.js'
import { CREDENTIAL_PROPERTY } from './auth.js'
import { registerChannelsRoute } from './channels.js'
import { pluginRoutes, type EndpointContext } from './endpoint.js'
import { registerEventsRoute, type StreamRouteDependencies } from './events.js'

/** The event and channel streams (docs/realtime.md), and their part in closing the app. */
export function registerStreams (fastify: FastifyInstance, config: Config, context: EndpointContext): void {
  const { declarations, realtime } = context
  const deps: StreamRouteDependencies = {
    basePath: config.basePath,
    realtime: () => realtime.start(),
    watch: context.auth.watchRule,
    credentialOf: (request) => request[CREDENTIAL_PROPERTY]
  }
  const route = pluginRoutes(fastify, config, context)
  registerEventsRoute(route, declarations.events, deps)
  if (hasAboutAndChannels(config.layout)) registerChannelsRoute(route, declarations.channels, deps)
  // Streams end before the server closes (it waits for open responses), the broker after it.
  fastify.addHook('preClose', function endSvcStreams (done) {
    realtime.endStreams()
    done()
  })
  fastify.addHook('onClose', async function closeSvcBroker () {
    await realtime.close()
  })
}
