import { endOfParam } from '../build/derive-name.js'

export interface PathParam {
  name: string
  /** A last `:name?`, which find-my-way also matches without it. */
  optional: boolean
}

/**
 * The path params of a route URL, in order, as find-my-way reads them: a `:name` stops at `(`, `-`, `.`
 * or `/`, a regexp in brackets may follow it, `::` is a literal colon, and a last param may be optional
 * (`:name?`). The wildcard is the param named `*`, as Fastify hands it to the handler.
 */
export function pathParamsOf (url: string): PathParam[] {
  const params: PathParam[] = []
  for (let index = 0; index < url.length; index++) {
    if (url[index] === '*') {
      params.push({ name: '*', optional: false })
    } else if (url[index] === ':' && url[index + 1] === ':') {
      index++
    } else if (url[index] === ':') {
      const end = endOfParam(url, index)
      const regexpAt = url.indexOf('(', index)
      let name = url.slice(index + 1, regexpAt !== -1 && regexpAt < end ? regexpAt : end)
      const optional = name.endsWith('?') || url[end] === '?'
      if (name.endsWith('?')) name = name.slice(0, -1)
      if (name !== '') params.push({ name, optional })
      index = end - 1
    }
  }
  return params
}
