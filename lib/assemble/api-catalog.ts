import type { Manifest } from '../manifest/types.js'

/** RFC 9727 §4.2: the profile an API catalog's media type names. */
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'

/** Absolute URLs of what the service serves, as the documents that describe it name them; absent when off. */
export interface ServiceUrls {
  manifest: string
  apiCatalog: string
  llmsTxt: string
  execute?: string
  pipeline?: string
  events?: string
  /** Layout 0.5.0: the base of the channel streams, `{channels}/{channel}/{key}`. */
  channels?: string
  mcp?: string
  /** The human page. */
  page?: string
}

/** A link's target in a JSON linkset (RFC 9264 §4.2.3): its URL and target attributes. */
export interface LinkTarget {
  href: string
  type?: string
  title?: string
}

/** An RFC 9264 JSON linkset: each context's links, by relation type. */
export interface Linkset {
  linkset: Array<{ anchor: string, [relation: string]: string | LinkTarget[] }>
}

/**
 * The API catalog (RFC 9727 §4): one linkset entry anchored at the service's `baseUrl`, with RFC 8631's
 * relations: `service-desc` the manifest, `service-doc` the page, `describedby` llms.txt, and the MCP
 * endpoint as an `item` (RFC 6573), as a catalog lists the APIs it knows of.
 */
export function apiCatalog (manifest: Pick<Manifest, 'baseUrl'>, urls: ServiceUrls): Linkset {
  const links: Record<string, LinkTarget[]> = {
    'service-desc': [{ href: urls.manifest, type: 'application/json' }]
  }
  if (urls.page !== undefined) links['service-doc'] = [{ href: urls.page, type: 'text/html' }]
  links.describedby = [{ href: urls.llmsTxt, type: 'text/markdown' }]
  if (urls.mcp !== undefined) links.item = [{ href: urls.mcp, title: 'MCP endpoint (Streamable HTTP): every command as a tool' }]
  return { linkset: [{ anchor: manifest.baseUrl, ...links }] }
}
