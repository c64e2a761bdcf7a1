import type { FastifyInstance } from 'fastify'
import { API_CATALOG_TYPE, apiCatalog, type ServiceUrls } from '../assemble/api-catalog.js'
import { llmsTxt } from '../assemble/llms-txt.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import type { Manifest } from '../manifest/types.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'
import type { EndpointLinks } from './links.js'
import { documentHandler, withoutCookies } from './manifest.js'
import { prepareResponse, type PreparedResponse } from './prepared.js'

/** RFC 9727 §2: the well-known URI of the API catalog. */
export const API_CATALOG_PATH = '/.well-known/api-catalog'
export const LLMS_TXT_PATH = '/llms.txt'

export interface DiscoveryConfig extends RouteLogConfig {
  baseUrl: string
  /** The manifest's path. */
  path: string
  maxAge: number
}

/** The documents that describe the service, as served. */
export interface DiscoveryDocuments {
  apiCatalog: string
  llmsTxt: string
}

/**
 * Both documents from one manifest: the one place they are made, at `ready()`. `manifest` is what every
 * caller may see, as both documents are public.
 */
export function discoveryDocuments (manifest: Readonly<Manifest>, urls: ServiceUrls): DiscoveryDocuments {
  return { apiCatalog: JSON.stringify(apiCatalog(manifest, urls)), llmsTxt: llmsTxt(manifest, urls) }
}

/**
 * What `discovery: true` adds (the plugin calls it then): `GET` and `HEAD` of the API catalog (RFC 9727) and of `/llms.txt`, both named in the
 * manifest's `Link` header. Each is made once, when the manifest is built, and served as the manifest is:
 * precomputed bytes and headers, an ETag of its own, 304 on `If-None-Match`, public, never a cookie.
 */
export function registerDiscovery (fastify: FastifyInstance, config: DiscoveryConfig, context: EndpointContext): void {
  // RFC 9727 §2: a HEAD of the catalog answers this header; so do its GET and its 304.
  const catalogLink = `<${API_CATALOG_PATH}>; rel="${LINK_RELATIONS.apiCatalog}"`
  let catalog: PreparedResponse | undefined
  let llms: PreparedResponse | undefined
  context.onCatalog((served) => {
    // Read once every endpoint has added its route, so every link is known.
    const documents = discoveryDocuments(served.publicManifest, serviceUrls(config, context.links))
    // Each ETag is a hash of the document's bytes.
    const cacheControl = `public, max-age=${config.maxAge}`
    catalog = prepareResponse({ body: documents.apiCatalog, contentType: API_CATALOG_TYPE, cacheControl, link: catalogLink })
    llms = prepareResponse({ body: documents.llmsTxt, contentType: 'text/markdown; charset=utf-8', cacheControl })
  })
  const route = pluginRoutes(fastify, config, context)
  const served = [
    { url: API_CATALOG_PATH, rel: LINK_RELATIONS.apiCatalog, current: () => catalog },
    { url: LLMS_TXT_PATH, rel: LINK_RELATIONS.llmsTxt, current: () => llms }
  ]
  for (const { url, rel, current } of served) {
    const handler = documentHandler(current)
    route({ method: 'GET', url, acts: false, rel, exposeHeadRoute: false, onSend: withoutCookies, handler })
    route({ method: 'HEAD', url, acts: false, onSend: withoutCookies, handler })
  }
}

/** Where each endpoint is, as absolute URLs on `baseUrl`'s origin, where the manifest's `Link` header puts them. */
function serviceUrls (config: DiscoveryConfig, links: EndpointLinks): ServiceUrls {
  const origin = new URL(config.baseUrl).origin
  const linked = (rel: string): string | undefined => {
    const path = links.pathOf(rel)
    return path === undefined ? undefined : `${origin}${path}`
  }
  return {
    manifest: `${origin}${config.path}`,
    apiCatalog: `${origin}${API_CATALOG_PATH}`,
    llmsTxt: `${origin}${LLMS_TXT_PATH}`,
    execute: linked(LINK_RELATIONS.execute),
    pipeline: linked(LINK_RELATIONS.pipeline),
    events: linked(LINK_RELATIONS.events),
    channels: linked(LINK_RELATIONS.channels),
    mcp: linked(LINK_RELATIONS.mcp),
    page: linked(LINK_RELATIONS.ui)
  }
}
