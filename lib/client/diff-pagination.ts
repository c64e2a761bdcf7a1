import { isDeepStrictEqual } from 'node:util'
import type { ManifestCommand } from '../manifest/types.js'
import { show, type ChangeLog } from './changes.js'

type RateLimit = ManifestCommand['rateLimit']
type Paginated = ManifestCommand['paginated']

/** A rate limit is advice on pacing: every call that worked still can, so no change of it breaks. */
export function diffRateLimit (log: ChangeLog, command: string, old: RateLimit, now: RateLimit): void {
  if (isDeepStrictEqual(old, now)) return
  const what = now === undefined ? 'is no longer rate-limited' : old === undefined ? `is now rate-limited to ${rate(now)}` : `rate limit changed from ${rate(old)} to ${rate(now)}`
  log.add(false, 'rateLimit.changed', command, `command ${command} ${what}`)
}

function rate (limit: NonNullable<RateLimit>): string {
  return `${show(limit.maxRequests)} requests per ${show(limit.windowMs)} ms`
}

/** Surf's defaults, which `paginated: true` stands for. */
const SURF_DEFAULTS = { style: 'cursor', defaultLimit: 20, maxLimit: 100, items: 'items', next: 'nextCursor', total: 'total' }

/**
 * A command that becomes paginated answers its first page where it answered the whole list, and one that
 * changes its style or the result's field names is walked another way: a client written for the old manifest
 * stops after one page or sends a position the route ignores. Those break; new limits, or no more pages, do not.
 */
export function diffPagination (log: ChangeLog, command: string, old: Paginated, now: Paginated): void {
  if (isDeepStrictEqual(old, now)) return
  const before = settingsOf(old)
  const after = settingsOf(now)
  if (after === undefined) {
    log.add(false, 'paginated.changed', command, `command ${command} is no longer paginated`)
    return
  }
  if (before === undefined) {
    log.add(true, 'paginated.changed', command, `command ${command} is now paginated: it answers one page at a time`)
    return
  }
  const walk = ['style', 'items', 'next', 'total'] as const
  const changed = Object.keys(SURF_DEFAULTS).filter((key) => before[key] !== after[key])
  const parts = changed.map((key) => `${key} ${show(before[key])} → ${show(after[key])}`)
  log.add(walk.some((key) => changed.includes(key)), 'paginated.changed', command, `command ${command}: pagination changed (${parts.join(', ')})`)
}

/** A `paginated` value with every setting filled in; undefined when the command is not paginated (Surf may say `false`). */
function settingsOf (paginated: Paginated | boolean): Record<string, unknown> | undefined {
  if (paginated === undefined || paginated === false) return undefined
  return paginated === true ? SURF_DEFAULTS : { ...SURF_DEFAULTS, ...paginated }
}
