import type { NamesConfig } from '../options.js'
import { parseRouteUrl } from '../route-url.js'

/** Stands for a removed path parameter or wildcard while a URL is turned into a name. */
const REMOVED = '\u0000'

/** The verb `names: { style: 'rest' }` adds for each method; a GET is `get` or `list` (see restVerb). */
const VERBS: Readonly<Record<string, string>> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }

/**
 * The default command name: the URL without its path parameters, segments joined by dots
 * (`/carts/:id/items` → `carts.items`). A parameter takes its regexp (`:id(^\\d+)`) with it, and the
 * `-` or `.` that joined it to static text (`/report-:year` → `report`, `/:from-:to` → nothing).
 * `names.stripPrefix` is removed first (`/api/carts` → `carts`); `names.style: 'rest'` adds a verb from the
 * method (`GET /articles/:slug` → `articles.get`, `GET /articles` → `articles.list`). An empty result means
 * no name can be derived, whatever the style.
 */
export function deriveName (url: string, method = 'GET', names: NamesConfig = { style: 'path' }): string {
  const parts = parseRouteUrl(stripped(url, names.stripPrefix))
  let withoutParams = ''
  for (const part of parts) withoutParams += part.kind === 'literal' ? part.text : REMOVED
  let name = ''
  for (const segment of withoutParams.split('/')) {
    const part = staticPart(segment)
    if (part !== '') name = name === '' ? part : `${name}.${part}`
  }
  if (names.style === 'path' || name === '') return name
  return `${name}.${restVerb(method, parts)}`
}

/** The URL without the prefix, when it starts with the prefix as whole segments (`/api` strips `/api/x`, not `/apis`). */
function stripped (url: string, prefix: string | undefined): string {
  if (prefix === undefined || !url.startsWith(prefix)) return url
  const rest = url.slice(prefix.length)
  return rest === '' || rest.startsWith('/') ? rest : url
}

/** `get` for a GET whose URL ends in a path param (one item), `list` for any other GET, else the method's verb. */
function restVerb (method: string, parts: ReturnType<typeof parseRouteUrl>): string {
  if (method === 'GET' || method === 'HEAD') {
    const last = parts[parts.length - 1]
    const endsInParam = last.kind === 'param' || (parts.length > 1 && last.text === '/' && parts[parts.length - 2].kind === 'param')
    return endsInParam ? 'get' : 'list'
  }
  return VERBS[method] ?? method.toLowerCase()
}

/** A segment's static text; around a removed parameter, the `-` and `.` separators go too. */
function staticPart (segment: string): string {
  if (segment === REMOVED) return ''
  if (!segment.includes(REMOVED)) return segment
  return segment.split(REMOVED).map((piece) => piece.replace(/^[-.]+|[-.]+$/g, '')).filter((piece) => piece !== '').join('-')
}
