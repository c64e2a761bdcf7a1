import { parseRouteUrl } from '../route-url.js'

/** Stands for a removed path parameter or wildcard while a URL is turned into a name. */
const REMOVED = '\u0000'

/**
 * The default command name: the URL without its path parameters, segments joined by dots
 * (`/carts/:id/items` → `carts.items`). A parameter takes its regexp (`:id(^\\d+)`) with it, and the
 * `-` or `.` that joined it to static text (`/report-:year` → `report`, `/:from-:to` → nothing).
 */
export function deriveName (url: string): string {
  const withoutParams = parseRouteUrl(url).map((part) => part.kind === 'literal' ? part.text : REMOVED).join('')
  const parts: string[] = []
  for (const segment of withoutParams.split('/')) {
    const part = staticPart(segment)
    if (part !== '') parts.push(part)
  }
  return parts.join('.')
}

/** A segment's static text; around a removed parameter, the `-` and `.` separators go too. */
function staticPart (segment: string): string {
  if (segment === REMOVED) return ''
  if (!segment.includes(REMOVED)) return segment
  return segment.split(REMOVED).map((piece) => piece.replace(/^[-.]+|[-.]+$/g, '')).filter((piece) => piece !== '').join('-')
}
