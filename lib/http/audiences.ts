import type { FastifyRequest } from 'fastify'
import { checksumOf } from '../assemble/manifest.js'
import type { Manifest, ManifestCommand } from '../manifest/types.js'
import { Lru } from '../util/lru.js'
import type { BearerAuth } from './auth.js'
import { prepareResponse, type PreparedResponse } from './manifest.js'

/** The most views of the manifest (and of MCP's tools) kept at once; the least recently used goes first. */
export const MAX_VIEWS = 64

/**
 * Who is asking, as the hidden commands see it (DESIGN §15): `false` when a credential was sent and refused,
 * else the names of the hidden commands the request's credential may see (none without one), sorted: one
 * key per distinct visible set, whichever credential has it.
 */
export type Audience = readonly string[] | false

/** The audience of a request, from its credential, checked once per request (`auth.credentialOf`). */
export async function audienceOf (auth: BearerAuth, request: FastifyRequest, hidden: ReadonlyMap<string, readonly string[]>): Promise<Audience> {
  const credential = await auth.credentialOf(request)
  if (credential === false) return false
  const visible: string[] = []
  if (credential === null) return visible
  for (const [name, scopes] of hidden) if (auth.grants(credential, scopes)) visible.push(name)
  return visible.sort()
}

/** The key of a visible set, for the views' caches. */
export function audienceKey (visible: readonly string[]): string {
  return visible.join(' ')
}

/**
 * The manifest as each audience is served it. Without hidden commands there is one view, the complete
 * manifest, served exactly as before. With them, the public view leaves them out (its own `commands`,
 * `checksum` and ETag) and every response says `vary: authorization`; a credential's view holds the hidden
 * commands it may see, made on first use and kept per visible set (at most `MAX_VIEWS`), `private` since it
 * follows from a credential.
 */
export class ManifestViews {
  /** What a caller without a credential is served. */
  readonly public: PreparedResponse
  /** The complete manifest's bytes (every command): the public body when nothing is hidden. */
  readonly completeBody: Buffer
  /** Whether any command is hidden: else there is one view and no credential is ever looked at. */
  readonly audiences: boolean
  private readonly views = new Lru<PreparedResponse>(MAX_VIEWS)

  constructor (
    private readonly manifest: Readonly<Manifest>,
    /** The hidden commands and the scopes each needs (`catalog.hidden`). */
    readonly hidden: ReadonlyMap<string, readonly string[]>,
    private readonly maxAge: number,
    private readonly link?: string
  ) {
    this.audiences = hidden.size > 0
    if (!this.audiences) {
      this.public = prepareResponse(manifest, maxAge, link)
      this.completeBody = this.public.body
      return
    }
    this.public = this.prepare([], 'public')
    this.completeBody = Buffer.from(JSON.stringify(manifest), 'utf8')
  }

  /** The view of a credential that may see `visible` (sorted names of hidden commands). */
  viewOf (visible: readonly string[]): PreparedResponse {
    return this.views.get(audienceKey(visible), () => this.prepare(visible, 'private'))
  }

  /** The response of the view that holds the hidden commands in `visible` and no other. */
  private prepare (visible: readonly string[], scope: 'public' | 'private'): PreparedResponse {
    const commands: Record<string, ManifestCommand> = {}
    for (const [name, command] of Object.entries(this.manifest.commands)) {
      if (!this.hidden.has(name) || visible.includes(name)) commands[name] = command
    }
    // The spread keeps the manifest's key order; only `commands` and `checksum` are the view's own.
    const view: Manifest = { ...this.manifest, commands, checksum: checksumOf(commands) } as Manifest
    return prepareResponse(view, this.maxAge, this.link, { scope, vary: true })
  }
}
