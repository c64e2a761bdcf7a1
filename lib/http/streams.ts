import type { FastifyInstance } from 'fastify'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { hasAboutAndChannels, type Config } from '../options.js'
import { subjectReader } from '../realtime/addressing.js'
import { CREDENTIAL_PROPERTY } from './auth.js'
import { registerChannelsRoute } from './channels.js'
import type { EndpointContext } from './endpoint.js'
import { registerEventsRoute, type StreamRouteDependencies } from './events.js'

/** The event and channel streams (§9), and their part in closing the app. */
export function registerStreams (fastify: FastifyInstance, config: Config, { declarations, auth, origins, realtime, links }: EndpointContext): void {
  const deps: StreamRouteDependencies = {
    basePath: config.basePath,
    realtime: () => realtime.start(),
    originCheck: origins.onRequest,
    authenticate: config.auth === undefined ? undefined : auth.onRequest,
    credentialOf: (request) => request[CREDENTIAL_PROPERTY],
    subjectOf: subjectReader(config.auth?.subject),
    routeLog: config.routeLog
  }
  registerEventsRoute(fastify, declarations.events, deps)
  links.add(`${config.basePath}/events`, LINK_RELATIONS.events)
  if (hasAboutAndChannels(config.layout)) {
    registerChannelsRoute(fastify, declarations.channels, deps)
    links.add(`${config.basePath}/channels`, LINK_RELATIONS.channels)
  }
  // Streams end before the server closes (it waits for open responses), the broker after it.
  fastify.addHook('preClose', function endSvcStreams (done) {
    realtime.endStreams()
    done()
  })
  fastify.addHook('onClose', async function closeSvcBroker () {
    await realtime.close()
  })
}
