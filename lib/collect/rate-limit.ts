import { createRequire } from 'node:module'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { ManifestRateLimit } from '../manifest/types.js'
import { isPlainObject } from '../util/objects.js'
import { invalid } from './checks.js'

const RATE_LIMIT_PLUGIN = '@fastify/rate-limit'

/**
 * @fastify/rate-limit's parser of a text window, loaded when a route first has one: an app without one
 * does not load the package when it imports the plugin.
 */
let parseWindow: ((text: string) => number | undefined) | undefined

/** `svc.rateLimit`: `{ maxRequests, windowMs }`, whole numbers, checked and copied in this key order. */
export function readSvcRateLimit (value: unknown, route: string): ManifestRateLimit {
  const expected = '{ maxRequests, windowMs }: requests allowed (0 or more) per window of milliseconds (1 or more)'
  if (!isPlainObject(value)) invalid(route, 'svc.rateLimit', expected, value)
  for (const key of Object.keys(value)) {
    if (key !== 'maxRequests' && key !== 'windowMs') invalid(route, `svc.rateLimit.${key}`, 'absent: svc.rateLimit has maxRequests and windowMs', value[key])
  }
  const { maxRequests, windowMs } = value
  if (!Number.isSafeInteger(maxRequests) || (maxRequests as number) < 0) invalid(route, 'svc.rateLimit.maxRequests', 'a whole number of requests, 0 or more', maxRequests)
  if (!Number.isSafeInteger(windowMs) || (windowMs as number) < 1) invalid(route, 'svc.rateLimit.windowMs', 'a whole number of milliseconds, 1 or more', windowMs)
  return { maxRequests: maxRequests as number, windowMs: windowMs as number }
}

/**
 * The limit @fastify/rate-limit applies to a route, when the route's own `config.rateLimit` says it in plain
 * values, read as the plugin reads them: a number of milliseconds (truncated) or a text such as `'1 minute'`
 * parsed by the plugin's own parser. Nothing when the plugin is not registered where the route is, when the
 * route opts out (`rateLimit: false`), when `max` or `timeWindow` is a function (it depends on the request), or
 * when the route leaves one to the plugin's registration options: the plugin keeps those to itself (no API
 * reads them without running the app's functions on a made-up request), so they are left out, and
 * `svc.rateLimit` states them.
 */
export function routeRateLimit (instance: FastifyInstance, routeOptions: RouteOptions): ManifestRateLimit | undefined {
  const config = (routeOptions.config as { rateLimit?: unknown } | undefined)?.rateLimit
  if (!isPlainObject(config) || !instance.hasPlugin(RATE_LIMIT_PLUGIN)) return undefined
  const maxRequests = requestCount(config.max)
  const windowMs = windowOf(config.timeWindow)
  if (maxRequests === undefined || windowMs === undefined) return undefined
  return { maxRequests, windowMs }
}

/** `max` as the plugin takes it: a finite number of 0 or more, truncated. */
function requestCount (max: unknown): number | undefined {
  return typeof max === 'number' && Number.isFinite(max) && max >= 0 ? Math.trunc(max) : undefined
}

/** `timeWindow` as the plugin takes it: milliseconds (truncated), or a text its parser reads (`'1 minute'`). */
function windowOf (timeWindow: unknown): number | undefined {
  if (typeof timeWindow === 'number') return requestCount(timeWindow)
  if (typeof timeWindow !== 'string') return undefined
  // The parser @fastify/rate-limit itself reads a text window with: the manifest says what the plugin applies.
  parseWindow ??= (createRequire(import.meta.url)('@lukeed/ms') as typeof import('@lukeed/ms')).parse
  return requestCount(parseWindow(timeWindow))
}
