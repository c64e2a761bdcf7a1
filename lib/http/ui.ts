import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_MISSING_DEPENDENCY } from '../errors.js'
import { LINK_RELATIONS } from '../manifest/invocation.js'
import { pluginRoutes, type EndpointContext, type RouteLogConfig } from './endpoint.js'
import { matchesChecksum, withoutCookies } from './manifest.js'

export interface UiConfig extends RouteLogConfig {
  ui: false | { path: string }
  /** The manifest's path: the page fetches it. */
  path: string
}

/**
 * The page's files, as the build writes them (scripts/build.js bundles lib/ui/ into dist/ui/), and where
 * each is served: the page itself at the `ui` path, its assets under it.
 */
const ASSETS = [
  { file: 'index.html', route: '', type: 'text/html; charset=utf-8' },
  { file: 'app.js', route: '/app.js', type: 'text/javascript; charset=utf-8' },
  { file: 'app.css', route: '/app.css', type: 'text/css; charset=utf-8' },
  { file: 'icon.svg', route: '/icon.svg', type: 'image/svg+xml' }
] as const

/**
 * Sent with every file of the page. The page builds its DOM from service text, so nothing inline may run:
 * scripts, styles, images and requests come from this origin only, and the page may not be framed
 * (its Run buttons act with the visitor's token). The page is the same for every visitor, so it never
 * carries a cookie, and `no-cache` makes a browser ask again each time, cheaply, with the ETag.
 */
export const UI_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-cache',
  'content-security-policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer'
})

/** One file, ready to send: its bytes and every header precomputed. */
interface ServedFile {
  body: Buffer
  /** The entity-tag without quotes, as matchesChecksum compares it. */
  tag: string
  headers: Record<string, string>
  notModifiedHeaders: Record<string, string>
}

/**
 * Serves the human page (docs/ui.md) at the `ui` path and its assets under it, and names it in the
 * manifest's Link header (`rel="svc-ui"`). Its files are read here, once, and only when `ui` is on.
 * Each route checks the origin first, as every endpoint that acts does: the page acts through execute.
 */
export async function registerUiRoutes (fastify: FastifyInstance, config: UiConfig, context: Pick<EndpointContext, 'origins' | 'links'>, locateAssets = uiAssetsDir): Promise<void> {
  if (config.ui === false) return
  const assetsDir = locateAssets()
  const base = config.ui.path
  // All read before any route is added, in order: a missing file adds none, and the first one is named.
  const texts: string[] = []
  for (const asset of ASSETS) texts.push(await readAsset(assetsDir, asset.file))
  const route = pluginRoutes(fastify, config, context)
  ASSETS.forEach((asset, index) => {
    const page = asset.file === 'index.html'
    const text = page ? fillTemplate(texts[index], { ui: base, manifest: config.path }) : texts[index]
    const handler = fileHandler(servedFile(Buffer.from(text, 'utf8'), asset.type))
    route({ method: 'GET', url: `${base}${asset.route}`, acts: true, rel: page ? LINK_RELATIONS.ui : undefined, onSend: withoutCookies, handler })
  })
}

/**
 * Where the build writes the page: `dist/ui/` of this package. The package's root is the nearest folder
 * with a package.json above this module, which is the same folder whether the module runs bundled from
 * `dist/` (as published) or from `lib/http/` (as the tests run it).
 */
export function uiAssetsDir (from = fileURLToPath(import.meta.url)): string | undefined {
  let dir = dirname(from)
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return join(dir, 'dist', 'ui')
}

async function readAsset (dir: string | undefined, file: string): Promise<string> {
  const fix = 'The package\'s build writes them: run `npm run build`, or set ui: false.'
  if (dir === undefined) {
    throw new FST_SVC_MISSING_DEPENDENCY(`the ui option serves the page's files from dist/ui/ of fastify-svc-manifest, and no package.json was found above the plugin's module. ${fix}`)
  }
  try {
    return await readFile(join(dir, file), 'utf8')
  } catch (error) {
    throw new FST_SVC_MISSING_DEPENDENCY(`the ui option serves the page's files from ${dir}, and ${file} could not be read there (${(error as Error).message}). ${fix}`)
  }
}

/** The page names its assets and the manifest by absolute path, so it works with or without a trailing `/`. */
function fillTemplate (html: string, values: Record<'ui' | 'manifest', string>): string {
  return html.replace(/\{\{(ui|manifest)\}\}/g, (_, key: 'ui' | 'manifest') => escapeAttribute(values[key]))
}

/** The paths are checked options already; escaped all the same, as they land in attributes. */
function escapeAttribute (text: string): string {
  return text.replace(/[&"'<>]/g, (character) => `&#${character.charCodeAt(0)};`)
}

function servedFile (body: Buffer, type: string): ServedFile {
  const tag = createHash('sha256').update(body).digest('base64url').slice(0, 27)
  const etag = `"${tag}"`
  return {
    body,
    tag,
    headers: { ...UI_HEADERS, 'content-type': type, etag },
    notModifiedHeaders: { ...UI_HEADERS, etag }
  }
}

function fileHandler (file: ServedFile) {
  return function serveUiFile (request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const ifNoneMatch = request.headers['if-none-match']
    if (ifNoneMatch !== undefined && matchesChecksum(ifNoneMatch, file.tag)) return reply.code(304).headers(file.notModifiedHeaders).send()
    return reply.headers(file.headers).send(file.body)
  }
}
