import type { FastifyInstance, RouteOptions } from 'fastify'
import { FST_SVC_MULTI_METHOD, FST_SVC_UNKNOWN_REF } from '../errors.js'
import { isPlainObject } from '../util/objects.js'
import { refName, type TypeNames } from '../schema/schema.js'
import { addHeaderParamSource, addPathParamSources, addRouteParamSources, installParams, responseSchema, svcParamsPlace } from './route-schemas.js'
import { inspectSchema } from '../schema/check.js'
import { DISPATCH_CONFIG, type CommandSource } from './sources.js'
import { checkExamples, exampleTarget, type ExampleTarget } from './examples.js'
import { readSvcOption, type DescriptionRule } from './svc-option.js'
import { invalid } from './checks.js'
import { routeRateLimit } from './rate-limit.js'

/** Called for every route of a command, its HEAD twin and its prefixed twin included (auth hooks attach here). */
export type CommandRouteListener = (routeOptions: RouteOptions, command: CommandSource) => void

/**
 * The `onRoute` hook: turns routes with a `svc` option into command sources. Problems are recorded and
 * raised from `onReady`, so that `ready()` rejects with all of one kind at once and nothing is served.
 */
export class RouteCollector {
  readonly commands: CommandSource[] = []
  readonly errors: Error[] = []
  /**
   * The commands collected for each `svc` object, to recognise Fastify's HEAD and prefix twins: one command
   * as it is, as nearly every `svc` object tags one route, or a list when an object tags several.
   */
  private readonly seen = new Map<unknown, CommandSource | CommandSource[]>()
  /** The URLs whose `svc` object was refused, so that their twins do not report the same problem again. */
  private readonly refused = new Map<unknown, Set<string>>()
  /** The commands with `svc.examples`, with what checking them against their route's validation needs. */
  private readonly exampleTargets: ExampleTarget[] = []

  constructor (
    private readonly types: TypeNames,
    private readonly onCommandRoute: CommandRouteListener,
    /** `requireDescriptions`: a route without a description is a problem, not a warning. */
    private readonly requireDescriptions = false
  ) {}

  /** Fastify calls it with the instance the route is registered in as `this`, whose validators check the examples. */
  readonly onRoute: (routeOptions: RouteOptions) => void = ((collector: RouteCollector) => function svcCollectRoute (this: unknown, routeOptions: RouteOptions): void {
    collector.onRouteOf(this as FastifyInstance, routeOptions)
  })(this)

  private onRouteOf (instance: FastifyInstance, routeOptions: RouteOptions): void {
    const svc: unknown = (routeOptions as { svc?: unknown }).svc
    if (svc === undefined) return
    // A missing description is reported here without stopping the route's other checks.
    const problems: Error[] = []
    try {
      this.collect(instance, routeOptions, svc, { require: this.requireDescriptions, report: (error) => problems.push(error) })
    } catch (error) {
      problems.push(error as Error)
      const url = withoutTrailingSlash(routeOptions.url as string)
      const urls = this.refused.get(svc) ?? new Set<string>()
      // A twin of a refused route (its HEAD route, its second URL) has the same problems: reported once.
      if (urls.has(url)) return
      urls.add(url)
      this.refused.set(svc, urls)
    }
    this.errors.push(...problems)
  }

  private collect (instance: FastifyInstance, routeOptions: RouteOptions, svc: unknown, descriptions: DescriptionRule): void {
    const method = singleMethod(routeOptions)
    const url = routeOptions.url as string
    const twinOf = this.twinOf(svc, method, url)
    if (twinOf !== undefined) {
      if (twinOf.svcParams !== undefined) installParams(routeOptions, method, twinOf.svcParams, twinOf.route)
      this.onCommandRoute(routeOptions, twinOf)
      return
    }
    const routeSchema = isPlainObject(routeOptions.schema) ? routeOptions.schema as Record<string, unknown> : undefined
    const command = readSvcOption(svc, method, url, routeSchema, descriptions)
    if (command.svcParams !== undefined) {
      const where = `${command.route} svc.params`
      addPathParamSources(command, routeSchema)
      addHeaderParamSource(command, routeSchema)
      // Checked whole before it becomes the route's validation schema, whose compiler would fail on it later.
      this.assertRefsKnown(inspectSchema(command.svcParams, where), where)
      installParams(routeOptions, method, command.svcParams, command.route)
      command.paramSources.push({ where, schema: command.svcParams, place: svcParamsPlace(method) })
    } else {
      addRouteParamSources(command, routeSchema)
    }
    command.returns ??= responseSchema(routeOptions, command.route)
    command.rateLimit ??= routeRateLimit(instance, routeOptions)
    if (routeOptions.bodyLimit !== undefined) command.bodyLimit = routeOptions.bodyLimit
    if (needsInject(routeOptions, command.route)) command.viaInject = true
    if (command.examples !== undefined) this.exampleTargets.push(exampleTarget(instance, routeOptions, command, command.examples))
    this.commands.push(command)
    this.remember(svc, command)
    this.onCommandRoute(routeOptions, command)
  }

  /** The routes whose description is their method and URL (`GET /roles/:id`): they have none of their own. */
  derivedDescriptions (): string[] {
    return this.commands.filter((command) => command.derivedDescription === true).map((command) => command.route)
  }

  /** The examples the route's own validation refuses: called from `onReady`, once Fastify compiled the routes. */
  checkExamples (): Error[] {
    return checkExamples(this.exampleTargets)
  }

  /** Drops what was collected once the manifest is built: Fastify takes no routes after `ready()`. */
  release (): void {
    this.commands.length = 0
    this.exampleTargets.length = 0
    this.seen.clear()
    this.refused.clear()
  }

  /** The command this route repeats: the auto HEAD route of a GET, or the second URL of a prefixed `'/'`. */
  private twinOf (svc: unknown, method: string, url: string): CommandSource | undefined {
    // `svc: true` routes share the key `true`: the method and URL below tell them apart.
    if (svc !== true && !isPlainObject(svc)) return undefined
    const earlier = this.seen.get(svc)
    if (earlier === undefined) return undefined
    for (const command of Array.isArray(earlier) ? earlier : [earlier]) {
      const sameMethod = command.method === method || (method === 'HEAD' && command.method === 'GET')
      if (sameMethod && withoutTrailingSlash(command.url) === withoutTrailingSlash(url)) return command
    }
    return undefined
  }

  private remember (svc: unknown, command: CommandSource): void {
    const earlier = this.seen.get(svc)
    if (earlier === undefined) this.seen.set(svc, command)
    else if (Array.isArray(earlier)) earlier.push(command)
    else this.seen.set(svc, [earlier, command])
  }

  /**
   * `svc.params` becomes the route's validation schema, so a `$ref` in it must resolve now: otherwise the
   * validator compiler fails first, with an error that does not name the command.
   */
  private assertRefsKnown (refs: readonly string[], where: string, checked = new Set<string>()): void {
    for (const ref of refs) {
      const name = refName(ref, this.types)
      if (name === undefined) {
        throw new FST_SVC_UNKNOWN_REF(`${where} refers to "${ref}", which is not a registered type. Register it with the "types" option (or app.svc.type() before this route).`)
      }
      // The validator compiles the types it refers to as well, so their own refs must resolve too.
      if (checked.has(name)) continue
      checked.add(name)
      this.assertRefsKnown(this.types.refsOf(name), `${where} → type "${name}"`, checked)
    }
  }
}

function withoutTrailingSlash (url: string): string {
  return url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url
}

function singleMethod (routeOptions: RouteOptions): string {
  if (typeof routeOptions.method === 'string') return routeOptions.method
  const methods = ([] as string[]).concat(routeOptions.method)
  const named = methods.filter((method) => method !== 'HEAD')
  if (named.length > 1) {
    throw new FST_SVC_MULTI_METHOD(`route ${methods.join(',')} ${routeOptions.url} answers ${named.join(' and ')}. A command has one method: declare one route per method, each with its own svc.name.`)
  }
  return named[0] ?? 'HEAD'
}

/**
 * Whether calls of the route's command must go through `app.inject()`: a websocket route (it needs a real
 * connection), or one whose `config` says so. Any other `svcDispatch` is a mistake, refused with the route.
 */
function needsInject (routeOptions: RouteOptions & { websocket?: unknown }, route: string): boolean {
  const value = (routeOptions.config as Record<string, unknown> | undefined)?.[DISPATCH_CONFIG]
  if (value !== undefined && value !== 'inject') invalid(route, `config.${DISPATCH_CONFIG}`, '"inject" (or left out)', value)
  return value === 'inject' || routeOptions.websocket === true
}
