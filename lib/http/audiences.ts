import type { FastifyRequest } from 'fastify'
import { commandsChecksum } from '../assemble/manifest.js'
import type { Manifest, ManifestCommand, ManifestField, ManifestType } from '../manifest/types.js'
import { Lru } from '../util/lru.js'
import { hasEvery, type BearerAuth } from './auth.js'
import { prepareResponse, type PreparedResponse } from './prepared.js'

/** The `vary` of every manifest response of an app with hidden commands. */
export const VARY = 'authorization'

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
  // The credential's scopes are read once, whatever the number of hidden commands.
  const granted = auth.grantedScopes(credential)
  for (const [name, scopes] of hidden) if (hasEvery(granted, scopes)) visible.push(name)
  return visible.sort()
}

/** Adds to `into` each type a descriptor names by its `type`, however deep (items, properties). */
function namedTypes (field: ManifestField, types: Readonly<Record<string, ManifestType>>, into: Set<string>): void {
  if (Object.hasOwn(types, field.type) && !into.has(field.type)) {
    into.add(field.type)
    namedTypes(types[field.type], types, into)
  }
  if (field.items !== undefined) namedTypes(field.items, types, into)
  for (const nested of Object.values(field.properties ?? {})) namedTypes(nested, types, into)
}

/** The types the params and return types of `commands` name, and those these name in turn. */
function typesOfCommands (commands: Iterable<ManifestCommand>, types: Readonly<Record<string, ManifestType>>): Set<string> {
  const named = new Set<string>()
  for (const command of commands) {
    for (const field of Object.values(command.params ?? {})) namedTypes(field, types, named)
    if (command.returns !== undefined) namedTypes(command.returns, types, named)
  }
  return named
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
    /** The hidden commands and the scopes each needs (`hiddenCommands`, handed on as `catalog.hidden`). */
    readonly hidden: ReadonlyMap<string, readonly string[]>,
    private readonly maxAge: number,
    private readonly link?: string
  ) {
    this.audiences = hidden.size > 0
    if (!this.audiences) {
      this.public = this.response(manifest, 'public', false)
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

  /**
   * The types of a view: all but those only the commands it leaves out name (a hidden command's return
   * type would tell of it). A type that a command of the view, an event or another kept type names stays.
   */
  private typesOf (commands: Record<string, ManifestCommand>): Manifest['types'] {
    const { types } = this.manifest
    const left = Object.entries(this.manifest.commands).filter(([name]) => !Object.hasOwn(commands, name)).map(([, command]) => command)
    const theirs = typesOfCommands(left, types)
    if (theirs.size === 0) return types
    const kept = typesOfCommands(Object.values(commands), types)
    for (const event of Object.values(this.manifest.events)) for (const field of Object.values(event.data ?? {})) namedTypes(field, types, kept)
    for (const name of Object.keys(types)) if (!theirs.has(name)) namedTypes({ type: name }, types, kept)
    return Object.fromEntries(Object.entries(types).filter(([name]) => kept.has(name)))
  }

  /** The response of the view that holds the hidden commands in `visible` and no other. */
  private prepare (visible: readonly string[], scope: 'public' | 'private'): PreparedResponse {
    const commands: Record<string, ManifestCommand> = {}
    for (const [name, command] of Object.entries(this.manifest.commands)) {
      if (!this.hidden.has(name) || visible.includes(name)) commands[name] = command
    }
    // The spread keeps the manifest's key order; `commands`, `checksum` and `types` are the view's own.
    const view: Manifest = { ...this.manifest, commands, types: this.typesOf(commands), checksum: commandsChecksum(commands) } as Manifest
    return this.response(view, scope, true)
  }

  /**
   * A view's response: cached by anyone, or (a credential's view) by its client only; `vary` when the app
   * has hidden commands, as the answer then depends on the credential.
   */
  private response (view: Readonly<Manifest>, scope: 'public' | 'private', vary: boolean): PreparedResponse {
    return prepareResponse({
      body: JSON.stringify(view),
      contentType: 'application/json; charset=utf-8',
      checksum: view.checksum,
      cacheControl: `${scope}, max-age=${this.maxAge}`,
      link: this.link,
      ...(vary && { vary: VARY })
    })
  }
}
