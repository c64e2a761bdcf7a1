import { isDeepStrictEqual } from 'node:util'
import type { ManifestCommand } from '../manifest/types.js'
import { paginationOf, SURF_PAGINATION, type Pagination } from '../manifest/pagination.js'
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

/**
 * A command that becomes paginated answers its first page where it answered the whole list, and one that
 * changes its style or the result's field names is walked another way: a client written for the old manifest
 * stops after one page or sends a position the route ignores. Those break; new limits, or no more pages, do not.
 */
export function diffPagination (log: ChangeLog, command: string, old: Paginated, now: Paginated): void {
  if (isDeepStrictEqual(old, now)) return
  const before = paginationOf(old)
  const after = paginationOf(now)
  if (after === undefined) {
    log.add(false, 'paginated.changed', command, `command ${command} is no longer paginated`)
    return
  }
  if (before === undefined) {
    log.add(true, 'paginated.changed', command, `command ${command} is now paginated: it answers one page at a time`)
    return
  }
  const walk: ReadonlyArray<keyof Pagination> = ['style', 'items', 'next', 'total']
  const changed = (Object.keys(SURF_PAGINATION) as Array<keyof Pagination>).filter((key) => before[key] !== after[key])
  const parts = changed.map((key) => `${key} ${show(before[key])} → ${show(after[key])}`)
  log.add(walk.some((key) => changed.includes(key)), 'paginated.changed', command, `command ${command}: pagination changed (${parts.join(', ')})`)
}
