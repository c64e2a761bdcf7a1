/**
 * The one reader of find-my-way route URLs, as the router reads them: a `:name` param ends at `(`, `-`,
 * `.`, `/` or `?`, may carry a regexp in brackets (`:id(^\\d+)`, `\\` escaping one character), and a last
 * one may be optional (`:name?`); `::` is a literal `:`; `*` is the wildcard param, named `*` as Fastify
 * hands it to the handler.
 */

export type UrlPart =
  | { readonly kind: 'literal', readonly text: string }
  | { readonly kind: 'param', readonly name: string, readonly optional: boolean, readonly pattern?: string }

export interface PathParam {
  name: string
  /** A last `:name?`, which find-my-way also matches without it. */
  optional: boolean
  /** The regexp of `:name(regexp)`, anchored as the router applies it to the param's text: `^\d+$`. */
  pattern?: string
}

/** The URL as static text and params, in order. Adjacent static text is one part. */
export function parseRouteUrl (url: string): UrlPart[] {
  const parts: UrlPart[] = []
  let literal = ''
  const param = (name: string, optional: boolean, pattern?: string): void => {
    if (literal !== '') parts.push({ kind: 'literal', text: literal })
    literal = ''
    parts.push(pattern === undefined ? { kind: 'param', name, optional } : { kind: 'param', name, optional, pattern })
  }
  for (let index = 0; index < url.length; index++) {
    const char = url[index]
    if (char !== ':' && char !== '*') {
      // Static text up to the next param, in one piece.
      const next = nextSpecial(url, index)
      literal += url.slice(index, next)
      index = next - 1
    } else if (char === ':' && url[index + 1] === ':') {
      literal += ':'
      index++
    } else if (char === ':') {
      let end = index + 1
      while (end < url.length && !'(-./?'.includes(url[end])) end++
      const name = url.slice(index + 1, end)
      const start = end
      end = skipRegexp(url, end)
      const optional = url[end] === '?'
      param(name, optional, end === start ? undefined : anchored(url.slice(start, end)))
      index = optional ? end : end - 1
    } else {
      param('*', false)
    }
  }
  if (literal !== '') parts.push({ kind: 'literal', text: literal })
  return parts
}

/** Where the next `:` or `*` at or after `from` is, or the URL's length. */
function nextSpecial (url: string, from: number): number {
  const colon = url.indexOf(':', from)
  const star = url.indexOf('*', from)
  const end = colon === -1 ? url.length : colon
  return star === -1 || star > end ? end : star
}

/** Whether a URL has any param at all: most URLs have none, and need no parsing. */
export function hasParams (url: string): boolean {
  return url.includes(':') || url.includes('*')
}

/** The path params of a URL, in order; an empty name (a lone `:`) is no param. */
export function pathParamsOf (url: string): PathParam[] {
  const params: PathParam[] = []
  for (const part of parseRouteUrl(url)) {
    if (part.kind === 'param' && part.name !== '') {
      params.push(part.pattern === undefined ? { name: part.name, optional: part.optional } : { name: part.name, optional: part.optional, pattern: part.pattern })
    }
  }
  return params
}

/**
 * A param's `(regexp)` as find-my-way applies it: a leading `^` and a trailing `$` inside the brackets are
 * dropped, and the param's whole text must match what is left. An alternation is grouped so that the anchors
 * hold for every branch.
 */
function anchored (bracketed: string): string {
  let inner = bracketed.slice(1, -1)
  if (inner.startsWith('^')) inner = inner.slice(1)
  if (inner.endsWith('$')) inner = inner.slice(0, -1)
  return inner.includes('|') ? `^(?:${inner})$` : `^${inner}$`
}

/** Past a `(regexp)` that starts at `start`, to its matching bracket; `\\` escapes one character. */
function skipRegexp (url: string, start: number): number {
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
