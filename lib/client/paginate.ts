import { firstPageParams, nextPageParams, pageItems, paginationOf, type Pagination } from '../manifest/pagination.js'
import type { ReadManifest } from '../manifest/types.js'
import { ManifestClientError } from './errors.js'
import type { ExecuteOptions, Invoker } from './invoke.js'

/** Options of `paginate`: those of each page's `execute` (a token, a signal, a timeout per page). */
export type PaginateOptions = Omit<ExecuteOptions, 'onProgress'>

/**
 * Every item of a paginated command, page by page, with the caller's other params on every call, walked as
 * its manifest's `paginated` says (lib/manifest/pagination.ts).
 */
export async function * paginate<T> (
  manifest: () => Promise<ReadManifest>, execute: Invoker['execute'],
  command: string, params: Record<string, unknown> = {}, options: PaginateOptions = {}
): AsyncGenerator<T, void, undefined> {
  const pagination = paginationIn(await manifest(), command)
  let call: Record<string, unknown> | undefined = firstPageParams(pagination, params)
  const walk = new Walk(command, pagination)
  while (call !== undefined) {
    walk.sending(call)
    const page = await execute(command, call, options)
    const items = pageItems(pagination, page)
    if (items === undefined) {
      throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `${command} answered a page without an array "${pagination.items}", where its manifest says the page's items are`)
    }
    walk.answered(call, items)
    yield * items as T[]
    call = nextPageParams(pagination, call, page)
  }
}

/**
 * What keeps a walk from going round for ever when a service does not move on: a cursor it already answered
 * (the same one again, or a cycle: refused before it is sent again), or an offset it ignores (the page at
 * the next offset holds the same items as the one before: refused before they are yielded again).
 */
class Walk {
  /** The cursors sent so far, as JSON text: a cursor may be any JSON value. */
  private readonly cursors = new Set<string>()
  private previous: { offset: unknown, items: string } | undefined

  constructor (private readonly command: string, private readonly pagination: Pagination) {}

  sending (call: Record<string, unknown>): void {
    if (this.pagination.style !== 'cursor' || call.cursor === undefined) return
    const cursor = JSON.stringify(call.cursor)
    if (this.cursors.has(cursor)) {
      throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `${this.command} answered the cursor ${cursor} a second time: its pages go round in a circle, and the walk stops there`)
    }
    this.cursors.add(cursor)
  }

  answered (call: Record<string, unknown>, items: unknown[]): void {
    if (this.pagination.style === 'cursor') return
    const text = JSON.stringify(items)
    if (this.previous !== undefined && items.length > 0 && text === this.previous.items) {
      throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `${this.command} answered the same items at offset ${String(call.offset)} as at offset ${String(this.previous.offset)}: its route seems not to read "offset", and the walk stops there`)
    }
    this.previous = { offset: call.offset, items: text }
  }
}

/** How the manifest says the command's pages are walked; a command it does not declare paginated is refused. */
function paginationIn (manifest: ReadManifest, command: string): Pagination {
  const listed = Object.hasOwn(manifest.commands, command)
  const pagination = listed ? paginationOf(manifest.commands[command].paginated) : undefined
  if (pagination !== undefined) return pagination
  const why = listed ? 'which its manifest does not declare paginated' : 'which its manifest does not list'
  throw new ManifestClientError('SVC_CLIENT_NOT_PAGINATED', `paginate("${command}"): ${manifest.name} has no paginated command "${command}", ${why}. Call it with execute().`)
}
