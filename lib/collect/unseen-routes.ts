import type { FastifyInstance, RouteOptions } from 'fastify'
import { parseRouteUrl, type UrlPart } from '../route-url.js'
import { FST_SVC_UNSEEN_ROUTES } from '../errors.js'
import type { UnseenRoutesMode } from '../option-types.js'

/** What `printRoutes()` answers for a server without routes. */
const EMPTY_TREE = '(empty tree)'
/** A line of `printRoutes()` that opens a node: the tree drawing, then the node's own part of the path. */
const NODE_LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.*)$/
/** The routes printed after a node's path: ` (GET, HEAD)`, then the constraints as JSON when there are any. */
const ROUTE_PART = /^(.*?) \(([A-Z]+(?:-[A-Z]+)*(?:, [A-Z]+(?:-[A-Z]+)*)*)\)(?: \{.*\})?$/
/** Stands for a path param while paths are compared: the name does not matter, only the position. */
const PARAM = '\u0000'
/** How many unseen routes an error or warning message names; the log entry carries them all. */
const UNSEEN_ROUTES_NAMED = 20

export interface PrintedRoute {
  path: string
  methods: string[]
}

/**
 * Finds the routes the plugin's `onRoute` hook never saw, and so neither describes nor protects: those
 * registered before the plugin, and, when the plugin sits in an encapsulated context, those of other
 * contexts. Fastify has no list of routes but `printRoutes()`, which costs about as much as building the
 * manifest on a large app, so the usual case pays almost nothing:
 * - the plugin at the root of the app: every route registered after it passes its hook, so the unseen
 *   routes are exactly those the server had when the plugin was registered (none, when it comes first);
 * - the plugin in an encapsulated context: the hook records every route it sees, and `ready()` compares
 *   them with what `printRoutes()` lists.
 */
export class UnseenRoutes {
  /** `printRoutes()` at registration, when the plugin is at the root and the server had routes. */
  private readonly earlier: string | undefined
  /** Each route the hook saw, as `METHOD shape`, with how often, when the plugin is not at the root. */
  private readonly seen: Map<string, number> | undefined

  constructor (fastify: FastifyInstance, private readonly mode: UnseenRoutesMode) {
    if (mode === 'ignore') return
    if (isRoot(fastify)) {
      const printed = fastify.printRoutes()
      if (printed !== EMPTY_TREE) this.earlier = printed
    } else {
      this.seen = new Map()
    }
  }

  /** The hook to add, when routes must be recorded. */
  get onRoute (): ((routeOptions: RouteOptions) => void) | undefined {
    const seen = this.seen
    if (seen === undefined) return undefined
    return function recordRoute (routeOptions: RouteOptions) {
      for (const method of ([] as string[]).concat(routeOptions.method)) {
        for (const path of routerPaths(routeOptions.url as string)) {
          const key = `${method} ${shapeOf(path)}`
          seen.set(key, (seen.get(key) ?? 0) + 1)
        }
      }
    }
  }

  /**
   * At `ready()`: warns about the routes the hook did not see, or fails with `FST_SVC_UNSEEN_ROUTES`, as the
   * `unseenRoutes` option says.
   */
  report (fastify: FastifyInstance): void {
    if (this.mode === 'ignore') return
    const routes = this.find(fastify)
    if (routes.length === 0) return
    const named = routes.slice(0, UNSEEN_ROUTES_NAMED).join('; ') + (routes.length > UNSEEN_ROUTES_NAMED ? `; and ${routes.length - UNSEEN_ROUTES_NAMED} more` : '')
    const [count, it, its, is] = routes.length === 1 ? ['1 route was', 'it', 'its', 'it is'] : [`${routes.length} routes were`, 'them', 'their', 'they are']
    // Both fixes: an app factory that is not async cannot await the plugin, and can only move its routes.
    const message = `${count} registered where fastify-svc-manifest cannot see ${it} (before the plugin, or in a context beside it): ${named}. ` +
      `The manifest does not describe ${it}, and ${its} svc.auth is not enforced: an svc option on ${it} is ignored. Either register the ` +
      `plugin before ${it}, at the root of the app (await app.register(svcManifest, …)), or move ${it} into a plugin registered after ` +
      'fastify-svc-manifest (app.register(async (app) => { … })), the only fix for a synchronous app factory that cannot await. ' +
      `Set unseenRoutes: 'ignore' if ${is} meant to stay out of the manifest.`
    if (this.mode === 'error') throw new FST_SVC_UNSEEN_ROUTES(message)
    fastify.log.warn({ unseenRoutes: routes }, message)
  }

  /** The routes the hook did not see, each as `GET, HEAD /path`. */
  private find (fastify: FastifyInstance): string[] {
    if (this.earlier !== undefined) return printedRoutes(this.earlier).map(nameOf)
    if (this.seen === undefined) return []
    const seen = new Map(this.seen)
    const unseen: string[] = []
    for (const route of printedRoutes(fastify.printRoutes())) {
      const methods = route.methods.filter((method) => {
        const key = `${method} ${shapeOf(route.path)}`
        const count = seen.get(key) ?? 0
        if (count > 0) seen.set(key, count - 1)
        return count === 0
      })
      if (methods.length > 0) unseen.push(nameOf({ path: route.path, methods }))
    }
    return unseen
  }
}

/**
 * Fastify builds each encapsulated context with `Object.create(parent)`; the root instance is an object
 * of its own. A plugin wrapped with fastify-plugin runs in the context it is registered in.
 */
function isRoot (fastify: FastifyInstance): boolean {
  return Object.getPrototypeOf(fastify) === Object.prototype
}

function nameOf ({ path, methods }: PrintedRoute): string {
  return `${methods.join(', ')} ${path}`
}

/**
 * The paths the router registers for a URL, as it prints them: two for a last optional param (`/a/:id?`:
 * `/a/:id` and `/a`), and `::` (a literal colon) as the `:` it stands for.
 */
function routerPaths (url: string): string[] {
  const parts = parseRouteUrl(url)
  const optional = parts.findIndex((part) => part.kind === 'param' && part.optional)
  if (optional === -1) return [printed(parts)]
  // Without it, the path also loses the `/` before it (and keeps one after it): `/a/:id?/` → `/a/`.
  const before = parts.slice(0, optional)
  const last = before.at(-1)
  if (last?.kind === 'literal') before[before.length - 1] = { kind: 'literal', text: last.text.slice(0, -1) }
  return [printed(parts), printed([...before, ...parts.slice(optional + 1)]) || '/']
}

function printed (parts: UrlPart[]): string {
  return parts.map((part) => part.kind === 'literal' ? part.text : part.name === '*' ? '*' : `:${part.name}`).join('')
}

/**
 * A path as the router prints it, reduced to what tells two routes apart whatever the router's options:
 * lower case, single slashes, no trailing slash, each param (its regexp included, or the `:a|:b` of two
 * names sharing a node) one marker. The router prints a literal colon as `:` too, so it counts as a param
 * here, on both sides of the comparison alike.
 */
function shapeOf (path: string): string {
  let shape = path.toLowerCase().replace(/\/{2,}/g, '/')
  if (shape.length > 1 && shape.endsWith('/')) shape = shape.slice(0, -1)
  return parseRouteUrl(shape).map((part) => part.kind === 'literal' ? part.text : PARAM).join('')
}

/** The routes of a `printRoutes()` tree: each node's path is its ancestors' parts and its own. */
function printedRoutes (tree: string): PrintedRoute[] {
  const routes: PrintedRoute[] = []
  const parts: string[] = []
  let path = ''
  for (const line of tree.split('\n')) {
    const node = NODE_LINE.exec(line)
    // A line without a branch lists more routes of the node above it (other constraints).
    const text = node === null ? line.replace(/^(?:│ {3}| {4})*/, '') : node[2]
    const route = ROUTE_PART.exec(text)
    if (node !== null) {
      const depth = node[1].length / 4
      parts.length = depth
      parts.push(route === null ? ownPart(text) : ownPart(route[1]))
      path = parts.join('')
    }
    if (route !== null) routes.push({ path, methods: route[2].split(', ') })
  }
  return routes
}

/** find-my-way prints a root without a path of its own (a server with a `*` route) as this. */
function ownPart (key: string): string {
  return key === '(empty root node)' ? '' : key
}
