import { FST_SVC_INVALID_PAGINATION } from '../errors.js'
import { paginationParams } from '../collect/pagination.js'
import { SURF_PAGINATION, type Pagination } from '../manifest/pagination.js'
import type { ManifestCommand, ManifestParam } from '../manifest/types.js'

/**
 * A paginated command's `paginated`: `true` when every setting is Surf's default, else the style and limits,
 * with the result's field names that are not Surf's. The route must take the params a caller walks the pages
 * with, else `FST_SVC_INVALID_PAGINATION` names the ones it lacks.
 */
export function servedPagination (route: string, pagination: Pagination, params: Readonly<Record<string, ManifestParam>>): NonNullable<ManifestCommand['paginated']> {
  const missing = paginationParams(pagination).filter((name) => !Object.hasOwn(params, name))
  if (missing.length > 0) {
    const names = missing.map((name) => `"${name}"`).join(' and ')
    throw new FST_SVC_INVALID_PAGINATION(`route ${route} (svc.paginated, ${pagination.style} style) has no param ${names}. Add ${missing.length > 1 ? 'them' : 'it'} to the route's querystring or body schema (or svc.params), or set svc.paginated: { style: '${pagination.style === 'cursor' ? 'offset' : 'cursor'}' } if the route pages the other way.`)
  }
  const { style, defaultLimit, maxLimit, items, next, total } = pagination
  if (style === SURF_PAGINATION.style && defaultLimit === SURF_PAGINATION.defaultLimit && maxLimit === SURF_PAGINATION.maxLimit &&
    items === SURF_PAGINATION.items && next === SURF_PAGINATION.next && total === SURF_PAGINATION.total) return true
  const served: Exclude<ManifestCommand['paginated'], true | undefined> = { style, defaultLimit, maxLimit }
  if (items !== SURF_PAGINATION.items) served.items = items
  if (next !== SURF_PAGINATION.next) served.next = next
  if (total !== SURF_PAGINATION.total) served.total = total
  return served
}
