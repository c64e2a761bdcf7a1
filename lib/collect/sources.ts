import type { Schema } from '../schema/schema.js'
import type { SvcHints } from './svc-option.js'
import type { Pagination } from '../manifest/pagination.js'
import type { ManifestRateLimit } from '../manifest/types.js'

/**
 * The route `config` key that sends a command's calls through `app.inject()` instead of the in-memory
 * dispatch: `config: { svcDispatch: 'inject' }`, for a route that needs a real connection.
 */
export const DISPATCH_CONFIG = 'svcDispatch'

/** Where a caller puts a param: in the URL path, a request header, the query string or the JSON body. */
export type ParamPlace = 'path' | 'header' | 'query' | 'body'

/** The param that carries a whole body that is not an object with properties (an array, a string, …). */
export const WHOLE_BODY_PARAM = 'body'

/** Where a command's params come from: path params first, then headers, then `svc.params` or the route's querystring and body schemas. */
export interface ParamSource {
  where: string
  schema: Schema
  /** Path params are always required: the URL carries them. */
  place: ParamPlace
  /** Path params the URL lets a caller leave out (a last `:name?`): the only ones not required. */
  optional?: ReadonlySet<string>
  /**
   * The route's body schema is not an object with properties: `schema` is an object whose one property,
   * `body` (WHOLE_BODY_PARAM), is that body schema, and the param's value is the whole body.
   */
  wholeBody?: true
}

/** What the manifest needs of one tagged route, copied at `onRoute` time (Fastify mutates the options later). */
export interface CommandSource {
  /** `GET /carts/:id/items`, for error messages. */
  route: string
  method: string
  url: string
  /** The explicit `svc.name`, or undefined to derive it from the URL. */
  name?: string
  description: string
  /** The description is the route's method and URL: the route has none of its own (see `requireDescriptions`). */
  derivedDescription?: true
  paramSources: ParamSource[]
  /** `svc.params`, installed as the validation schema of the route and of its twins. */
  svcParams?: Schema
  /** `fromResponse`: read from the route's response schema rather than given as `svc.returns`. */
  returns?: { where: string, schema: Schema, fromResponse?: true }
  tags?: string[]
  hints?: SvcHints
  auth?: 'required' | 'optional' | 'hidden'
  /** `svc.scopes`: the scopes a credential must carry to call the command. */
  scopes?: string[]
  /** `svc.examples`: worked calls an agent can copy. */
  examples?: Array<{ title?: string, params: Record<string, unknown>, result?: unknown }>
  /** `svc.deprecated: true`. */
  deprecated?: boolean
  /** `svc.stream: true`. */
  stream?: true
  /** `svc.timeout`: the command's own deadline in milliseconds (`0`: none). */
  timeout?: number
  /** The route's own `bodyLimit` option, when it sets one. */
  bodyLimit?: number
  /** `svc.rateLimit`, else the route's @fastify/rate-limit config. */
  rateLimit?: ManifestRateLimit
  /** `svc.paginated`, every setting filled in. */
  paginated?: Pagination
  /** Calls go through `app.inject()`: a websocket route, or `config: { svcDispatch: 'inject' }`. */
  viaInject?: true
}
