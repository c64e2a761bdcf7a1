import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../options.js'
import { RESOURCE_METADATA_PATH } from './auth.js'
import { pluginRoutes, type EndpointContext } from './endpoint.js'

/** What clients may keep of the document: it changes only with a deploy. */
const CACHE_CONTROL = 'public, max-age=3600'

/** RFC 9728 §2: the protected resource metadata this plugin serves. */
export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  bearer_methods_supported: ['header']
  scopes_supported?: string[]
}

/**
 * `GET {RESOURCE_METADATA_PATH}` (RFC 9728), public, when `auth.authorizationServers` is set: where a client
 * that got a 401 (an MCP client among them) finds the authorization servers that issue tokens for this
 * service. The document sits at the root of `baseUrl`'s origin, and every challenge names it there, so the
 * resource it describes is that origin (RFC 9728 §3.3: the `resource` is the identifier the metadata URL was
 * made from), which every command, the MCP endpoint included, is under. `scopes_supported` lists the scopes
 * the commands require (`svc.scopes`), once the catalog is built.
 */
export function registerOAuthMetadata (fastify: FastifyInstance, config: Config, context: EndpointContext): void {
  const servers = config.auth?.authorizationServers
  if (servers === undefined) return
  const metadata: ProtectedResourceMetadata = {
    resource: new URL(config.baseUrl).origin,
    authorization_servers: [...servers],
    bearer_methods_supported: ['header']
  }
  let body = JSON.stringify(metadata)
  context.onCatalog((catalog) => {
    const scopes = new Set<string>()
    for (const command of Object.values(catalog.publicManifest.commands)) {
      for (const scope of command.requiredScopes ?? []) scopes.add(scope)
    }
    if (scopes.size > 0) body = JSON.stringify({ ...metadata, scopes_supported: [...scopes].sort() })
  })
  pluginRoutes(fastify, config, context)({
    method: 'GET',
    url: RESOURCE_METADATA_PATH,
    acts: false,
    handler: async function serveResourceMetadata (request: FastifyRequest, reply: FastifyReply) {
      return await reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', CACHE_CONTROL).send(body)
    }
  })
}
