import type { ReadManifest } from '../manifest/types.js'
import { ManifestClientError } from './errors.js'
import type { ExecuteOptions, Invoker } from './invoke.js'

/** Options of `paginate`: those of each page's `execute` (a token, a signal, a timeout per page). */
export type PaginateOptions = Omit<ExecuteOptions, 'onProgress'>

interface Walk {
  style: 'cursor' | 'offset'
  defaultLimit: number
  items: string
  next: string
  total: string
}

/** Surf's defaults (§8.3, §8.4), which `paginated: true` stands for and an object's missing keys take. */
const SURF_DEFAULTS: Walk = { style: 'cursor', defaultLimit: 20, items: 'items', next: 'nextCursor', total: 'total' }

/**
 * Every item of a paginated command, page by page, with the caller's other params on every call. A cursor walk
 * sends back the page's `next` field as `cursor` until it is null or absent (or Surf's `hasMore` is false); an
 * offset walk sends `offset` and `limit` (the caller's, else the manifest's `defaultLimit`) and ends with a
 * page shorter than asked for, or once `total` items are in.
 */
export async function * paginate<T> (
  manifest: () => Promise<ReadManifest>, execute: Invoker['execute'],
  command: string, params: Record<string, unknown> = {}, options: PaginateOptions = {}
): AsyncGenerator<T, void, undefined> {
  const walk = walkOf(await manifest(), command)
  if (walk.style === 'offset') {
    const limit = typeof params.limit === 'number' ? params.limit : walk.defaultLimit
    let offset = typeof params.offset === 'number' ? params.offset : 0
    for (;;) {
      const page = await execute(command, { ...params, offset, limit }, options)
      const items = itemsOf<T>(page, walk, command)
      yield * items
      offset += items.length
      const total = (page as Record<string, unknown>)[walk.total]
      if (items.length === 0 || items.length < limit || (typeof total === 'number' && offset >= total)) return
    }
  }
  let call = params
  for (;;) {
    const page = await execute(command, call, options)
    yield * itemsOf<T>(page, walk, command)
    const { [walk.next]: next, hasMore } = page as Record<string, unknown>
    if (next === null || next === undefined || hasMore === false) return
    call = { ...params, cursor: next }
  }
}

/** How the manifest says the command's pages are walked; a command it does not declare paginated is refused. */
function walkOf (manifest: ReadManifest, command: string): Walk {
  const paginated: unknown = Object.hasOwn(manifest.commands, command) ? manifest.commands[command].paginated : undefined
  if (paginated === true) return SURF_DEFAULTS
  if (paginated !== null && typeof paginated === 'object') return { ...SURF_DEFAULTS, ...paginated as Partial<Walk> }
  const why = Object.hasOwn(manifest.commands, command) ? 'which its manifest does not declare paginated' : 'which its manifest does not list'
  throw new ManifestClientError('SVC_CLIENT_NOT_PAGINATED', `paginate("${command}"): ${manifest.name} has no paginated command "${command}", ${why}. Call it with execute().`)
}

function itemsOf<T> (page: unknown, walk: Walk, command: string): T[] {
  const items = (page as Record<string, unknown> | null)?.[walk.items]
  if (Array.isArray(items)) return items as T[]
  throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `${command} answered a page without an array "${walk.items}", where its manifest says the page's items are`)
}
