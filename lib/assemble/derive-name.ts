import type { NamesConfig } from '../options.js'
import { parseRouteUrl, type UrlPart } from '../route-url.js'

/** Stands for a removed path parameter or wildcard while a URL is turned into a name. */
const REMOVED = '\u0000'

/** The verb `names: { style: 'rest' }` adds for each method; a GET is `get` or `list` (see restVerb). */
const VERBS: Readonly<Record<string, string>> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }

/** The name of the root URL (`/`, after `stripPrefix`), which has no segment to name it by. */
export const ROOT_NAME = 'root'

/**
 * The default command name: the URL without its path parameters, segments joined by dots
 * (`/carts/:id/items` → `carts.items`). A parameter takes its regexp (`:id(^\\d+)`) with it, and the
 * `-` or `.` that joined it to static text (`/report-:year` → `report`, `/:from-:to` → nothing).
 * `names.stripPrefix` is removed first (`/api/carts` → `carts`); the root URL is `root`. `names.style:
 * 'rest'` adds a verb from the method (`GET /articles/:slug` → `articles.get`, `GET /articles` →
 * `articles.list`); a GET without a last path param is `get` too when `answersOne()` says it answers one
 * value, not a list (`GET /health` → `health.get`). An empty result means no name
 * can be derived (a URL of params only), whatever the style.
 */
export function deriveName (url: string, method: string, names: NamesConfig, answersOne: () => boolean): string {
  const path = stripped(url, names.stripPrefix)
  const parts = parseRouteUrl(path)
  let withoutParams = ''
  for (const part of parts) withoutParams += part.kind === 'literal' ? part.text : REMOVED
  let name = ''
  for (const segment of withoutParams.split('/')) {
    const part = staticPart(segment)
    if (part !== '') name = name === '' ? part : `${name}.${part}`
  }
  if (name === '' && (path === '' || path === '/')) name = ROOT_NAME
  if (names.style === 'path' || name === '') return name
  return `${name}.${restVerb(method, parts, answersOne)}`
}

/**
 * The URLs, as shapes (see `shapeOf`), that are collections of items: each URL that ends in a path param,
 * without it (`/articles/:slug` → `/articles`, `/articles/:slug/comments/:id` → `/articles/:slug/comments`).
 * A GET on such a URL lists those items, whatever its response looks like (`{ articles, articlesCount }`).
 */
export function collectionShapes (urls: Iterable<string>): Set<string> {
  const shapes = new Set<string>()
  for (const url of urls) {
    const parts = withoutTrailingSlash(parseRouteUrl(url))
    if (parts.at(-1)?.kind === 'param') shapes.add(shapeOf(parts.slice(0, -1)))
  }
  return shapes
}

/** A URL as a shape: its static text without a trailing `/`, each path param one marker, whatever its name. */
export function urlShape (url: string): string {
  return shapeOf(withoutTrailingSlash(parseRouteUrl(url)))
}

function shapeOf (parts: readonly UrlPart[]): string {
  let shape = ''
  for (const part of parts) shape += part.kind === 'literal' ? part.text : REMOVED
  return shape.endsWith('/') ? shape.slice(0, -1) : shape
}

/** The parts without a last literal `/` (`/articles/:slug/` ends in its param, as the router sees it). */
function withoutTrailingSlash (parts: UrlPart[]): UrlPart[] {
  const last = parts.at(-1)
  return last?.kind === 'literal' && last.text === '/' && parts.length > 1 ? parts.slice(0, -1) : parts
}

/** The URL without the prefix, when it starts with the prefix as whole segments (`/api` strips `/api/x`, not `/apis`). */
function stripped (url: string, prefix: string | undefined): string {
  if (prefix === undefined || !url.startsWith(prefix)) return url
  const rest = url.slice(prefix.length)
  return rest === '' || rest.startsWith('/') ? rest : url
}

/**
 * `get` for a GET whose URL ends in a path param (one item) or that answers one value (a singleton such as
 * `/health`), `list` for any other GET, else the method's verb.
 */
function restVerb (method: string, parts: ReturnType<typeof parseRouteUrl>, answersOne: () => boolean): string {
  if (method === 'GET' || method === 'HEAD') {
    // No part at all: the root, once `stripPrefix` took the whole URL.
    const last = parts.at(-1)
    const endsInParam = last !== undefined && (last.kind === 'param' || (last.text === '/' && parts.at(-2)?.kind === 'param'))
    return endsInParam || answersOne() ? 'get' : 'list'
  }
  return VERBS[method] ?? method.toLowerCase()
}

/** A segment's static text; around a removed parameter, the `-` and `.` separators go too. */
function staticPart (segment: string): string {
  if (segment === REMOVED) return ''
  if (!segment.includes(REMOVED)) return segment
  return segment.split(REMOVED).map((piece) => piece.replace(/^[-.]+|[-.]+$/g, '')).filter((piece) => piece !== '').join('-')
}
