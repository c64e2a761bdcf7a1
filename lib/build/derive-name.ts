/** Stands for a removed path parameter or wildcard while a URL is turned into a name. */
const REMOVED = '\u0000'

/**
 * The default command name: the URL without its path parameters, segments joined by dots
 * (`/carts/:id/items` → `carts.items`). A parameter takes its regexp (`:id(^\\d+)`) with it, and the
 * `-` or `.` that joined it to static text (`/report-:year` → `report`, `/:from-:to` → nothing).
 */
export function deriveName (url: string): string {
  const parts: string[] = []
  for (const segment of withoutParams(url).split('/')) {
    const part = staticPart(segment)
    if (part !== '') parts.push(part)
  }
  return parts.join('.')
}

/** The URL with each parameter (`:name`, `:name(regexp)`) and wildcard replaced by one marker. `::` is a literal `:`. */
function withoutParams (url: string): string {
  let out = ''
  let copiedTo = 0
  for (let index = url.search(/[:*]/); index !== -1 && index < url.length; index++) {
    const char = url[index]
    if (char !== ':' && char !== '*') continue
    const literalColon = char === ':' && url[index + 1] === ':'
    out += url.slice(copiedTo, index) + (literalColon ? ':' : REMOVED)
    if (literalColon) index++
    else if (char === ':') index = endOfParam(url, index) - 1
    copiedTo = index + 1
  }
  return out + url.slice(copiedTo)
}

/** Where a parameter that starts at `start` ends: its name stops at `(`, `-`, `.` or `/`; a regexp follows in brackets. */
export function endOfParam (url: string, start: number): number {
  let index = start + 1
  while (index < url.length && !'(-./'.includes(url[index])) index++
  return skipRegexp(url, index)
}

/** Past a `(regexp)` that starts at `start`, to its matching bracket; `\\` escapes one character, as find-my-way reads it. */
export function skipRegexp (url: string, start: number): number {
  let index = start
  if (url[index] !== '(') return index
  let depth = 0
  do {
    if (url[index] === '\\') index++
    else if (url[index] === '(') depth++
    else if (url[index] === ')') depth--
    index++
  } while (depth > 0 && index < url.length)
  return index
}

/** A segment's static text; around a removed parameter, the `-` and `.` separators go too. */
function staticPart (segment: string): string {
  if (segment === REMOVED) return ''
  if (!segment.includes(REMOVED)) return segment
  return segment.split(REMOVED).map((piece) => piece.replace(/^[-.]+|[-.]+$/g, '')).filter((piece) => piece !== '').join('-')
}
