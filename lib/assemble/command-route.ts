import { svcParamsPlace } from '../collect/route-schemas.js'
import type { CommandSource, ParamPlace } from '../collect/sources.js'
import type { Schema } from '../schema/schema.js'

/** How to call one command over its own route: what execute, pipeline and MCP dispatch on. */
export interface CommandRoute {
  readonly name: string
  /** The route's method, e.g. `GET`. */
  readonly method: string
  /** The route's URL as registered, prefix included, e.g. `/carts/:id/items`. */
  readonly url: string
  /**
   * Where params the command does not declare go: the body for POST, PUT and PATCH, else the query; the
   * query when the body is the whole-body param `body`.
   */
  readonly extraPlace: 'query' | 'body'
  /** The param `body` carries the whole body (the route's body schema is not an object with properties). */
  readonly wholeBody: boolean
  /** The route requires a bearer credential (`svc.auth: 'required'` or `'hidden'`). */
  readonly auth: boolean
  /** `svc.auth: 'hidden'`: the scopes a credential must grant for the command to exist for its caller. */
  readonly hidden?: readonly string[]
  /** The route's own `bodyLimit`, when it sets one; else the server's applies. */
  readonly bodyLimit?: number
  /** The object schemas the params come from, as the route validates them, path params first. */
  readonly paramSchemas: ReadonlyArray<{ readonly schema: Schema, readonly place: ParamPlace, readonly optional?: ReadonlySet<string>, readonly wholeBody?: true }>
  /** The route's own success response schema (`200`, `201` or `2xx`), as Fastify serializes the result with it; MCP's output schema. */
  readonly response?: Schema
  /** Calls go through `app.inject()` (a websocket route, or `config: { svcDispatch: 'inject' }`). */
  readonly viaInject: boolean
  /** `svc.stream: true`: a streamed execute relays the route's pieces as they come. */
  readonly stream: boolean
  /** `svc.timeout`: the command's own deadline in milliseconds (`0`: none); else `invoke.timeout`. */
  readonly timeout?: number
}

/** What the catalog keeps of a command to call its route. */
export function commandRouteOf (name: string, source: CommandSource): CommandRoute {
  const wholeBody = source.paramSources.some((paramSource) => paramSource.wholeBody === true)
  return {
    name,
    method: source.method,
    url: source.url,
    extraPlace: wholeBody ? 'query' : svcParamsPlace(source.method),
    wholeBody,
    auth: source.auth === 'required' || source.auth === 'hidden',
    hidden: source.auth === 'hidden' ? source.scopes ?? [] : undefined,
    bodyLimit: source.bodyLimit,
    paramSchemas: source.paramSources,
    response: source.returns?.fromResponse === true ? source.returns.schema : undefined,
    viaInject: source.viaInject === true,
    stream: source.stream === true,
    timeout: source.timeout
  }
}
