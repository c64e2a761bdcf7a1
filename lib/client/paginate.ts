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
  while (call !== undefined) {
    const page = await execute(command, call, options)
    const items = pageItems(pagination, page)
    if (items === undefined) {
      throw new ManifestClientError('SVC_CLIENT_INVALID_RESPONSE', `${command} answered a page without an array "${pagination.items}", where its manifest says the page's items are`)
    }
    yield * items as T[]
    call = nextPageParams(pagination, call, page)
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
