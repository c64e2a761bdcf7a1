import { isPlainObject } from '../util/objects.js'
import { invalid } from './checks.js'
import { SURF_PAGINATION, type Pagination } from '../manifest/pagination.js'

const KEYS = ['style', 'defaultLimit', 'maxLimit', 'items', 'next', 'total']

/**
 * `svc.paginated`: `true` (Surf's defaults), `false` (not paginated) or `{ style?, defaultLimit?, maxLimit?,
 * items?, next?, total? }`, each left out taking Surf's default. The route's params are checked when the
 * manifest is built (lib/assemble/pagination.ts).
 */
export function readPaginated (value: unknown, route: string): Pagination | undefined {
  if (value === false) return undefined
  if (value === true) return { ...SURF_PAGINATION }
  const shape = 'true, or { style?, defaultLimit?, maxLimit?, items?, next?, total? }'
  if (!isPlainObject(value)) invalid(route, 'svc.paginated', shape, value)
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) invalid(route, `svc.paginated.${key}`, `absent: svc.paginated takes ${KEYS.join(', ')}`, value[key])
  }
  const read: Pagination = { ...SURF_PAGINATION }
  if (value.style !== undefined) {
    if (value.style !== 'cursor' && value.style !== 'offset') invalid(route, 'svc.paginated.style', '"cursor" or "offset"', value.style)
    read.style = value.style
  }
  for (const key of ['defaultLimit', 'maxLimit'] as const) {
    if (value[key] === undefined) continue
    if (!Number.isSafeInteger(value[key]) || (value[key] as number) < 1) invalid(route, `svc.paginated.${key}`, 'a whole number of items, 1 or more', value[key])
    read[key] = value[key] as number
  }
  if (read.defaultLimit > read.maxLimit) {
    invalid(route, 'svc.paginated.defaultLimit', `at most maxLimit (${read.maxLimit})`, read.defaultLimit)
  }
  for (const key of ['items', 'next', 'total'] as const) {
    if (value[key] === undefined) continue
    if (typeof value[key] !== 'string' || value[key] === '') invalid(route, `svc.paginated.${key}`, 'the name of a field of the result, a non-empty string', value[key])
    read[key] = value[key] as string
  }
  if (read.style === 'offset' && value.next !== undefined) {
    invalid(route, 'svc.paginated.next', 'absent with style "offset": an offset walk counts the items it has, it reads no cursor', value.next)
  }
  return read
}

/** The params a paginated route must take: the position (`cursor` or `offset`) and `limit`. */
export function paginationParams (pagination: Pagination): [string, string] {
  return [pagination.style, 'limit']
}
