import type { CommandRoute } from '../assemble/command-route.js'
import { placesOf, type ParamPlace } from '../catalog.js'
import { parseRouteUrl } from '../route-url.js'

/**
 * How to call one command's route: computed once per command (on its first call), so that turning params
 * into a request is a walk over the params and nothing else.
 */
export interface RoutePlan {
  name: string
  method: string
  /** The route's URL as registered, for messages. */
  url: string
  /** The URL's static text around its path params: `literals[i]`, param `pathParams[i]`, `literals[i + 1]`, … */
  literals: string[]
  pathParams: string[]
  /** The name of a last `:name?` param, which may be left out: the URL then ends before it. */
  optionalParam?: string
  /** Null-prototype: a param called `__proto__` or `constructor` is looked up like any other. */
  places: Record<string, ParamPlace>
  extraPlace: 'query' | 'body'
  /**
   * POST, PUT and PATCH always get a JSON body (`{}` at least), so a body schema sees an object; not when
   * the param `body` is the whole body, which a call leaves out to send none.
   */
  alwaysBody: boolean
  /** The param `body` is the whole JSON body. */
  wholeBody: boolean
  /** The route's own `bodyLimit`, when it sets one. */
  bodyLimit?: number
  /** Called through `app.inject()` rather than on an inner request. */
  viaInject: boolean
  /** `svc.stream: true`: a streamed execute relays the route's pieces. */
  stream: boolean
  /** `svc.timeout`, when set: the command's own deadline in milliseconds (`0`: none). */
  timeout?: number
}

/**
 * A request to the route — `path` is `url` before its query string — or the reason the params cannot make
 * one (answered as `INVALID_PARAMS`).
 */
export type PlannedRequest = { url: string, path: string, payload: string | undefined, headers?: Record<string, string> } | { invalid: string }

export function planRoute (command: CommandRoute): RoutePlan {
  const { literals, pathParams, optionalParam } = splitTemplate(command.url)
  const places = placesOf(command)
  for (const name of pathParams) places[name] = 'path'
  // Header names are case-insensitive: `x-tenant` reaches the header declared `X-Tenant`.
  for (const name of Object.keys(places)) {
    if (places[name] === 'header' && !Object.hasOwn(places, name.toLowerCase())) places[name.toLowerCase()] = 'header'
  }
  return {
    name: command.name,
    method: command.method,
    url: command.url,
    literals,
    pathParams,
    optionalParam,
    places,
    extraPlace: command.extraPlace,
    alwaysBody: command.extraPlace === 'body',
    wholeBody: command.wholeBody,
    bodyLimit: command.bodyLimit,
    viaInject: command.viaInject,
    stream: command.stream,
    timeout: command.timeout
  }
}

/**
 * A find-my-way URL as static text and path param names: `literals[i]`, param `pathParams[i]`,
 * `literals[i + 1]`, …; the wildcard is the param named `*`.
 */
function splitTemplate (url: string): { literals: string[], pathParams: string[], optionalParam?: string } {
  const literals: string[] = []
  const pathParams: string[] = []
  let optionalParam: string | undefined
  let literal = ''
  for (const part of parseRouteUrl(url)) {
    if (part.kind === 'literal') {
      literal += part.text
      continue
    }
    literals.push(literal)
    literal = ''
    pathParams.push(part.name)
    if (part.optional) optionalParam = part.name
  }
  literals.push(literal)
  return { literals, pathParams, optionalParam }
}

/**
 * The route URL (path params filled in, query string appended) and the JSON body for these params.
 * A param the command does not declare goes to its non-path place; the route's validation decides.
 * A URL longer than `maxUrlLength` is refused, naming the param that took it past.
 */
export function planRequest (plan: RoutePlan, params: Record<string, unknown>, maxUrlLength: number): PlannedRequest {
  let url = plan.literals[0]
  for (let index = 0; index < plan.pathParams.length; index++) {
    const name = plan.pathParams[index]
    const given = Object.hasOwn(params, name)
    if (!given && name === plan.optionalParam) {
      // `/files/:name?` without a name is `/files`, as find-my-way registers it.
      if (url.length > 1 && url.endsWith('/')) url = url.slice(0, -1)
      break
    }
    const segment = pathSegment(name, params[name], given)
    if (segment.invalid !== undefined) return segment
    url += segment.text + plan.literals[index + 1]
    if (url.length > maxUrlLength) return tooLong(name, maxUrlLength)
  }
  let query = ''
  let body: unknown
  let headers: Record<string, string> | undefined
  let headerLength = 0
  // What a direct request's head holds: the URL with its query string, and the header lines.
  const headSize = (): number => url.length + (query === '' ? 0 : 1 + query.length) + headerLength
  for (const name of Object.keys(params)) {
    const place = plan.places[name] ?? plan.extraPlace
    if (place === 'path') continue
    const value = params[name]
    if (place === 'header') {
      const header = headerValue(name, value)
      if (header.invalid !== undefined) return header
      // Header names are case-insensitive: Node's, and Fastify's headers schema, are lower-case.
      headers ??= Object.create(null) as Record<string, string>
      headers[name.toLowerCase()] = header.text
      // `name: value` and its line end, held with the URL to what a direct request's head is held to.
      headerLength += name.length + header.text.length + 4
      if (headSize() > maxUrlLength) return tooLong(name, maxUrlLength, 'Header param', 'the request\'s URL and headers')
      continue
    }
    if (place === 'body') {
      // Only the whole-body param goes to the body of such a command: every other goes to the query.
      if (plan.wholeBody) body = value
      else {
        body ??= Object.create(null) as Record<string, unknown>
        (body as Record<string, unknown>)[name] = value
      }
      continue
    }
    const pairs = queryPairs(name, value)
    if (pairs.invalid !== undefined) return pairs
    if (pairs.text !== '') query += query === '' ? pairs.text : `&${pairs.text}`
    if (headSize() > maxUrlLength) return headerLength === 0 ? tooLong(name, maxUrlLength) : tooLong(name, maxUrlLength, 'Param', 'the request\'s URL and headers')
  }
  const path = url
  if (query !== '') url += `?${query}`
  if (body === undefined) return withHeaders({ url, path, payload: plan.alwaysBody ? '{}' : undefined }, headers)
  try {
    return withHeaders({ url, path, payload: JSON.stringify(body) }, headers)
  } catch {
    // JSON.stringify recurses, JSON.parse does not: a body Fastify parsed may be too deep to write again.
    return { invalid: 'The params are nested too deeply to be sent as JSON.' }
  }
}

type Piece = { text: string, invalid?: undefined } | { invalid: string }

function withHeaders (request: { url: string, path: string, payload: string | undefined }, headers: Record<string, string> | undefined): PlannedRequest {
  return headers === undefined ? request : { ...request, headers }
}

/** What a header field value cannot hold (RFC 9110): controls but tab, and anything past Latin-1. */
const NOT_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/

/** A header param's value as the header's text: a string, number or boolean, of characters a header can carry. */
function headerValue (name: string, value: unknown): Piece {
  if (!isScalar(value)) return { invalid: `Header param "${name}" must be a string, number or boolean; got ${structureOf(value)}.` }
  const text = String(value)
  if (NOT_IN_HEADER.test(text)) return { invalid: `Header param "${name}" holds a character a header cannot carry (a line break or another control character, or one past U+00FF).` }
  return { text }
}

/** The param that takes the URL (or the headers) past the server's limit, its name cut short if it is long itself. */
function tooLong (name: string, maxUrlLength: number, what = 'Param', where = 'the route\'s URL'): { invalid: string } {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name
  return { invalid: `${what} ${JSON.stringify(shown)} makes ${where} longer than ${maxUrlLength} characters, the server's maxHeaderSize, which a direct request is held to: send a shorter value.` }
}

function pathSegment (name: string, value: unknown, given: boolean): Piece {
  if (!given) return { invalid: `Missing path param "${name}": the route's URL needs it.` }
  if (!isScalar(value)) return { invalid: `Path param "${name}" must be a string, number or boolean; got ${structureOf(value)}.` }
  const text = String(value)
  // A URL parser folds "." and ".." segments into the path, which would reach another route.
  if (text === '' || text === '.' || text === '..') return { invalid: `Path param "${name}" cannot be ${JSON.stringify(text)}: a URL cannot carry it as a segment.` }
  return { text: encodeURIComponent(text) }
}

/** `name=value`, or one `name=item` per item of an array (none for an empty array). */
function queryPairs (name: string, value: unknown): Piece {
  const key = encodeURIComponent(name)
  if (isScalar(value)) return { text: `${key}=${encodeURIComponent(String(value))}` }
  const items = Array.isArray(value) ? value : [value]
  let text = ''
  for (const item of items) {
    if (!isScalar(item)) {
      const what = Array.isArray(value) ? `an array holding ${structureOf(item)}` : structureOf(value)
      return { invalid: `Query param "${name}" must be a string, number, boolean or an array of them; got ${what}, which a query string cannot carry.` }
    }
    text += `${text === '' ? '' : '&'}${key}=${encodeURIComponent(String(item))}`
  }
  return { text }
}

function isScalar (value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

function structureOf (value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : 'an object'
}
