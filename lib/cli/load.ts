import { readFile } from 'node:fs/promises'
import { createManifestClient } from '../client/client.js'
import type { ManifestClientError } from '../client/errors.js'
import { DEFAULT_TIMEOUT_MS } from '../client/http.js'
import { verifyManifest } from '../client/verify.js'
import type { Manifest } from '../manifest/types.js'
import { CliError, EXIT_FAILED } from './output.js'

/** How long a download may take unless `--timeout` says otherwise: the client's default, 10 s. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = DEFAULT_TIMEOUT_MS

/** A manifest source: an http(s) URL, or anything else as a file path. */
export function isUrl (source: string): boolean {
  return /^https?:\/\//i.test(source)
}

/**
 * A manifest that passes `verifyManifest`, from a URL or a JSON file. An invalid one ends the command with
 * exit code 1 and its problems; network, HTTP, file and JSON errors with exit code 2.
 */
export async function loadVerified (source: string, timeout: number): Promise<Manifest> {
  return isUrl(source) ? await download(source, timeout) : await readManifestFile(source)
}

/** Where a service's manifest is when a command is given its bare origin. */
export const DEFAULT_MANIFEST_PATH = '/.well-known/svc.json'

/** A bare origin (`https://shop.example`, with or without its `/`) means the manifest at its well-known path. */
export function manifestUrlOf (source: string): string {
  const url = new URL(source)
  if (url.pathname === '/' && url.search === '') url.pathname = DEFAULT_MANIFEST_PATH
  return url.href
}

/** Downloads with the client, which verifies the body, within `timeout` milliseconds. */
async function download (source: string, timeout: number): Promise<Manifest> {
  const url = manifestUrlOf(source)
  try {
    return (await createManifestClient({ url, timeout }).get()).manifest
  } catch (error) {
    const { message, errors } = error as ManifestClientError
    if (errors !== undefined) throw invalid(url, errors)
    throw new CliError(message)
  }
}

async function readManifestFile (path: string): Promise<Manifest> {
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
  const { ok, errors } = verifyManifest(manifest)
  if (!ok) throw invalid(path, errors)
  return manifest as Manifest
}

function invalid (source: string, errors: string[]): CliError {
  return new CliError(`${source} is not a valid manifest:`, EXIT_FAILED, errors)
}
