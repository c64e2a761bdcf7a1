/**
 * How a paginated command's pages are walked (Surf §8), from its manifest entry's `paginated`: what the
 * plugin fills in and serves, and what the client and the page follow, page after page.
 */

import type { ManifestPagination } from './types.js'

/**
 * Every setting of a paginated command, the manifest's `paginated` with none left out. `style`: `'cursor'`,
 * the caller sends back the page's `next` field as `cursor`; `'offset'`, it counts the items it has. `items`:
 * the field of the result that holds the page's items; `next`: the field of a cursor page that holds the
 * next page's cursor (null or absent: the last page); `total`: the field of the result that holds the number
 * of items across all pages, when the route says it.
 */
export type Pagination = Required<ManifestPagination>

/** Surf's defaults (§8.3, §8.4): what `paginated: true` stands for, and what an object leaves out. */
export const SURF_PAGINATION: Readonly<Pagination> = Object.freeze({
  style: 'cursor', defaultLimit: 20, maxLimit: 100, items: 'items', next: 'nextCursor', total: 'total'
})

/** The settings of a manifest entry's `paginated`; undefined when the command is not paginated (Surf may say `false`). */
export function paginationOf (paginated: unknown): Pagination | undefined {
  if (paginated === true) return { ...SURF_PAGINATION }
  if (paginated === null || typeof paginated !== 'object') return undefined
  return { ...SURF_PAGINATION, ...paginated as Partial<Pagination> }
}

/** The params of the first page: the caller's; an offset walk also says where it starts and how many it asks for. */
export function firstPageParams (pagination: Pagination, params: Record<string, unknown>): Record<string, unknown> {
  if (pagination.style === 'cursor') return params
  return { ...params, offset: params.offset ?? 0, limit: params.limit ?? pagination.defaultLimit }
}

/** A page's items: the array in its `items` field; undefined when the page has none. */
export function pageItems (pagination: Pagination, page: unknown): unknown[] | undefined {
  const items = page !== null && typeof page === 'object' ? (page as Record<string, unknown>)[pagination.items] : undefined
  return Array.isArray(items) ? items : undefined
}

/**
 * The params of the page after `page`, which was asked for with `sent` (firstPageParams' or this function's);
 * undefined after the last. A cursor walk ends when the page's `next` is null or absent (or Surf's `hasMore`
 * is false); an offset walk when a page has fewer items than asked for, or once `total` items are in.
 */
export function nextPageParams (pagination: Pagination, sent: Record<string, unknown>, page: unknown): Record<string, unknown> | undefined {
  const fields = page as Record<string, unknown>
  if (pagination.style === 'cursor') {
    const next = fields[pagination.next]
    return next === null || next === undefined || fields.hasMore === false ? undefined : { ...sent, cursor: next }
  }
  const count = (pageItems(pagination, page) as unknown[]).length
  // `sent` comes from firstPageParams (or this function): it has both, typed as the caller gave them.
  const limit = Number(sent.limit)
  const offset = Number(sent.offset) + count
  const total = fields[pagination.total]
  if (count === 0 || count < limit || (typeof total === 'number' && offset >= total)) return undefined
  return { ...sent, offset }
}
