import { readFile } from 'node:fs/promises'
import { createManifestClient, type ManifestClient, type ManifestResult } from '../client/client.js'
import type { ManifestClientError } from '../client/errors.js'
import { DEFAULT_TIMEOUT_MS } from '../client/http.js'
import { readerView } from '../client/reader-view.js'
import { verifyManifest } from '../client/verify.js'
import type { ReadManifest, ServedManifest } from '../manifest/types.js'
import { CliError, EXIT_FAILED } from './output.js'

/** How long a download may take unless `--timeout` says otherwise: the client's default, 10 s. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = DEFAULT_TIMEOUT_MS

/** A manifest source: an http(s) URL, or anything else as a file path. */
export function isUrl (source: string): boolean {
  return /^https?:\/\//i.test(source)
}

/** A manifest loaded and verified: as readers use it, as served, and how its checksum matched. */
export interface Loaded {
  manifest: ReadManifest
  served: ServedManifest
  /** `'surf'` when the checksum matched only as Surf computes it. */
  checksumMethod?: 'surf'
}

/**
 * A manifest that passes `verifyManifest` as a reader takes it (with `strict`, as the plugin serves it),
 * from a URL or a JSON file. An invalid one ends the command with exit code 1 and its problems; network,
 * HTTP, file and JSON errors with exit code 2.
 */
export async function loadVerified (source: string, timeout: number, strict = false, token?: string): Promise<Loaded> {
  const loaded = isUrl(source) ? await download(source, timeout, token) : await readManifestFile(source)
  if (strict) {
    const { ok, errors } = verifyManifest(loaded.served, { strict })
    if (!ok) throw invalid(`${source} (--strict)`, errors)
  }
  return loaded
}

/** Where a service's manifest is when a command is given its bare origin. */
export const DEFAULT_MANIFEST_PATH = '/.well-known/svc.json'

/** Where a Surf service's manifest is: tried when a bare origin has none at `DEFAULT_MANIFEST_PATH`. */
export const SURF_MANIFEST_PATH = '/.well-known/surf.json'

/** A bare origin (`https://shop.example`, with or without its `/`) means the manifest at its well-known path. */
export function manifestUrlOf (source: string): string {
  const url = new URL(source)
  if (isOrigin(url)) url.pathname = DEFAULT_MANIFEST_PATH
  return url.href
}

function isOrigin (url: URL): boolean {
  return url.pathname === '/' && url.search === ''
}

/**
 * A client of the manifest at `source` and what its first `get()` answered. A bare origin is looked up at
 * `/.well-known/svc.json`, then, when that answers 404, at Surf's `/.well-known/surf.json`. With `token`,
 * the manifest is that credential's view (docs/auth.md#audiences). Throws the client's error.
 */
export async function connectTo (source: string, timeout: number, signal?: AbortSignal, token?: string): Promise<{ client: ManifestClient, result: ManifestResult }> {
  const url = manifestUrlOf(source)
  const client = createManifestClient({ url, timeout, token })
  try {
    return { client, result: await client.get({ signal }) }
  } catch (error) {
    if (!isOrigin(new URL(source)) || (error as ManifestClientError).status !== 404) throw error
    const surf = createManifestClient({ url: new URL(SURF_MANIFEST_PATH, url).href, timeout, token })
    return { client: surf, result: await surf.get({ signal }) }
  }
}

/** Downloads with the client, which verifies the body, within `timeout` milliseconds. */
async function download (source: string, timeout: number, token?: string): Promise<Loaded> {
  try {
    const { manifest, served, checksumMethod } = (await connectTo(source, timeout, undefined, token)).result
    return checksumMethod === undefined ? { manifest, served } : { manifest, served, checksumMethod }
  } catch (error) {
    const { message, errors } = error as ManifestClientError
    if (errors !== undefined) throw invalid(manifestUrlOf(source), errors)
    throw new CliError(message)
  }
}

async function readManifestFile (path: string): Promise<Loaded> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`)
  }
  let manifest: unknown
  try {
    manifest = JSON.parse(text)
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`)
  }
  const { ok, errors, checksumMethod } = verifyManifest(manifest)
  if (!ok) throw invalid(path, errors)
  const served = manifest as ServedManifest
  return checksumMethod === undefined ? { manifest: readerView(served), served } : { manifest: readerView(served), served, checksumMethod }
}

function invalid (source: string, errors: string[]): CliError {
  return new CliError(`${source} is not a valid manifest:`, EXIT_FAILED, errors)
}
