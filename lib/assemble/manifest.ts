import { commandRouteOf, type CommandRoute } from './command-route.js'
import type { Declarations } from '../collect/declarations.js'
import type { CommandSource, ParamSource } from '../collect/sources.js'
import { FST_SVC_DUPLICATE_NAME, FST_SVC_NAME_NOT_DERIVABLE, FST_SVC_PARAMS_DECLARED_TWICE } from '../errors.js'
import { canonicalJson, sha256Hex, sortedMapChecksum } from '../manifest/canonical.js'
import { setOwn } from '../util/own-key.js'
import { isDottedName } from '../manifest/names.js'
import { MANIFEST_PRIMITIVES } from '../manifest/keywords.js'
import type { Manifest, ManifestAuth, ManifestCommand, ManifestEvent, ManifestField, ManifestParam, ManifestType } from '../manifest/types.js'
import { hasAboutAndChannels, type Config } from '../options.js'
import { collectionShapes, deriveName, urlShape } from './derive-name.js'
import { assertJsonValues } from './checksum-values.js'
import { together, withHint } from '../problems.js'
import { describeType, fieldsOf, paramOf, typeRefOf, type SchemaLookup } from './type-map.js'
import { SharedTypes } from './shared-types.js'
import { propertiesOf, type Schema } from '../schema/schema.js'
import { servedPagination } from './pagination.js'

export interface BuiltManifest {
  manifest: Manifest
  /** Each command's route and param places, for the catalog. */
  routes: CommandRoute[]
}

/**
 * Builds the manifest from the options, the declarations and the collected routes. The maps keyed by
 * name (commands, events, channels, types) are sorted, and the maps read from schemas (params, event data,
 * type properties) keep the schema's declaration order, so two instances with the same configuration
 * produce the same bytes (but `updatedAt`). In every map (see setOwn), a name such as
 * `__proto__` is a key like any other. The problems of one kind are reported together.
 */
export function buildManifest (
  config: Config, declarations: Declarations, sources: CommandSource[], now = new Date(),
  /** The app's shared schemas (`fastify.getSchemas()`): a `$ref` to one becomes a type (see SharedTypes). */
  sharedSchemas: Readonly<Record<string, unknown>> = {}
): BuiltManifest {
  const shared = new SharedTypes(sharedSchemas)
  const registry = lookupOf(declarations, shared)
  // Every command is built, named or not, and every problem kept: one boot lists them all. A name may
  // depend on the command's return type (a REST singleton), so commands and types are built first.
  const problems: Error[] = []
  const built = buildCommands(sources, registry, problems)
  const events = buildEvents(declarations, registry, problems)
  const types = buildTypes(declarations, registry, shared, problems)
  const nameProblems: Error[] = []
  const named = namedSources(sources, config, singletonRule(sources, built, types), nameProblems)
  if (nameProblems.length > 0 || problems.length > 0) throw together([...nameProblems, ...problems])
  const commands = sortedMap(named, (source) => built.get(source) as ManifestCommand, problems)
  const manifest: Manifest = {
    svc: config.layout,
    name: config.name,
    description: config.description,
    ...(config.about !== undefined && { about: config.about }),
    version: config.version,
    baseUrl: config.baseUrl,
    ...(config.auth !== undefined && { auth: manifestAuth(config.auth) }),
    commands,
    events,
    ...(hasAboutAndChannels(config.layout) && { channels: sortedMap(declarations.channels, (channel) => ({ description: channel.description }), problems) }),
    types,
    checksum: commandsChecksum(commands),
    updatedAt: now.toISOString()
  }
  return { manifest, routes: [...named].map(([name, source]) => commandRouteOf(name, source)) }
}

/**
 * The manifest's checksum, as the plugin serves it: SHA-256 of the RFC 8785 form of the commands, the same
 * value as the client's `checksumOf`, which checks what it is given for a client's errors. The fast path checks every value as it
 * orders it; only when it gives up are the commands searched for the value RFC 8785 forbids, refused with
 * where it is, and otherwise (an array-index key) written by the `canonicalize` package.
 */
export function commandsChecksum (commands: Record<string, ManifestCommand>): string {
  const checksum = sortedMapChecksum(commands)
  if (checksum !== undefined) return checksum
  assertJsonValues(commands)
  return sha256Hex(canonicalJson(commands))
}

/** Each source's command, in the order the routes were added; one that cannot be built is a problem. */
function buildCommands (sources: CommandSource[], registry: SchemaLookup, problems: Error[]): Map<CommandSource, ManifestCommand> {
  const built = new Map<CommandSource, ManifestCommand>()
  for (const source of sources) {
    try {
      built.set(source, buildCommand(source, registry))
    } catch (error) {
      problems.push(error as Error)
    }
  }
  return built
}

/**
 * Which GETs without a last path param the rest style names `get`: those that answer one value and are not
 * the collection of other routes' items. `GET /health` answering an object is `health.get`; `GET /articles`
 * beside `GET /articles/:slug` is `articles.list` even when it answers `{ articles, articlesCount }` (else
 * both would be `articles.get`).
 */
function singletonRule (sources: CommandSource[], built: Map<CommandSource, ManifestCommand>, types: Record<string, ManifestType>): (source: CommandSource) => boolean {
  let collections: Set<string> | undefined
  return (source) => {
    // A paginated command answers one page of a list: an object, which is still a list.
    if (source.paginated !== undefined) return false
    if (!answersOne(built.get(source)?.returns, types)) return false
    collections ??= collectionShapes(sources.map(({ url }) => url))
    return !collections.has(urlShape(source.url))
  }
}

/**
 * Whether a command's return type is declared and is one value, not an array: the rest style names such
 * a GET `get`. A registered type is followed to what it is; `any` may be an array, so it is not one value.
 */
function answersOne (returns: ManifestField | undefined, types: Record<string, ManifestType>): boolean {
  let type = returns?.type
  const followed = new Set<string>()
  while (type !== undefined && !MANIFEST_PRIMITIVES.has(type) && Object.hasOwn(types, type) && !followed.has(type)) {
    followed.add(type)
    type = types[type].type
  }
  return type !== undefined && type !== 'array' && type !== 'any'
}

/** Each command source under its name; every name two routes share is a problem. */
function namedSources (sources: CommandSource[], config: Config, singleton: (source: CommandSource) => boolean, problems: Error[]): Map<string, CommandSource> {
  const byName = new Map<string, CommandSource>()
  for (const source of sources) {
    let name: string
    try {
      name = commandName(source, config, singleton)
    } catch (error) {
      problems.push(error as Error)
      continue
    }
    const other = byName.get(name)
    if (other !== undefined) {
      // Two methods of one resource under one path-style name: the rest style names each by its method.
      const byMethod = config.names.style === 'path' && source.name === undefined && other.name === undefined && source.method !== other.method
      const fix = byMethod ? 'Set svc.name on one of them, or name commands by their method too: names: { style: \'rest\' }.' : 'Set svc.name on one of them.'
      problems.push(new FST_SVC_DUPLICATE_NAME(`routes ${other.route} and ${source.route} are both command "${name}". ${fix}`))
    } else {
      byName.set(name, source)
    }
  }
  return byName
}

function commandName (source: CommandSource, config: Config, singleton: (source: CommandSource) => boolean): string {
  if (source.name !== undefined) return source.name
  const derived = deriveName(source.url, source.method, config.names, () => singleton(source))
  if (isDottedName(derived)) return derived
  throw new FST_SVC_NAME_NOT_DERIVABLE(`route ${source.route} gives ${derived === '' ? 'no name' : `"${derived}", not a valid name`}. Set svc.name, for example svc: { name: 'cart.get', ... }.`)
}

function buildCommand (source: CommandSource, registry: SchemaLookup): ManifestCommand {
  const command: ManifestCommand = { description: source.description }
  const params = buildParams(source, registry)
  if (params !== undefined) command.params = params
  if (source.returns !== undefined) command.returns = returnsOf(source.returns, registry)
  if (source.tags !== undefined) command.tags = source.tags
  if (source.hints !== undefined) command.hints = source.hints
  if (source.stream === true) command.stream = true
  // A hidden command is served as the seed's `required`: who may see it is the server's business, not the wire's.
  if (source.auth !== undefined) command.auth = source.auth === 'hidden' ? 'required' : source.auth
  if (source.scopes !== undefined && source.scopes.length > 0) command.requiredScopes = source.scopes
  if (source.rateLimit !== undefined) command.rateLimit = source.rateLimit
  if (source.paginated !== undefined) command.paginated = servedPagination(source.route, source.paginated, params ?? {})
  if (source.examples !== undefined && source.examples.length > 0) command.examples = source.examples
  if (source.deprecated === true) command.deprecated = true
  return command
}

/**
 * The return type. A response schema that Fastify tolerates may still say nothing the manifest can name
 * (an OpenAPI-style `{ description: 'OK' }`): the error then points at `svc.returns`, which describes the
 * return type without touching the route.
 */
function returnsOf (returns: NonNullable<CommandSource['returns']>, registry: SchemaLookup): ManifestField {
  try {
    return typeRefOf(returns.schema, registry, returns.where)
  } catch (error) {
    if (returns.fromResponse !== true) throw error
    throw withHint(error as Error, 'Or set svc.returns to describe the return type without changing the route\'s response schema.')
  }
}

/**
 * The params of every source, in order (path params, then `svc.params` or the querystring, then the body),
 * each in its schema's declaration order. A name in two sources is refused: a caller could not tell where
 * it goes.
 */
function buildParams (source: CommandSource, registry: SchemaLookup): Record<string, ManifestParam> | undefined {
  const sources = source.paramSources
  if (sources.length === 0) return undefined
  const params: Record<string, ManifestParam> = {}
  const origin = sources.length > 1 ? new Map<string, ParamSource>() : undefined
  for (const paramSource of sources) {
    const { schema, where, place, optional } = paramSource
    for (const name of Object.keys(propertiesOf(schema) as Schema)) {
      if (origin !== undefined) {
        const first = origin.get(name)
        if (first !== undefined) {
          throw new FST_SVC_PARAMS_DECLARED_TWICE(`param "${name}" is in ${first.where} and in ${paramSource.where}. Rename one of them, or declare it in one place only.`)
        }
        origin.set(name, paramSource)
      }
      setOwn(params, name, paramOf(schema, name, registry, where, place === 'path' && optional?.has(name) !== true))
    }
  }
  return params
}

function buildEvents (declarations: Declarations, registry: SchemaLookup, problems: Error[]): Record<string, ManifestEvent> {
  return sortedMap(declarations.events, (event, name) => {
    const built: ManifestEvent = { description: event.description }
    if (event.data !== undefined) built.data = fieldsOf(event.data, registry, `event "${name}" data`)
    return built
  }, problems)
}

/**
 * The registered types, and the shared schemas a `$ref` made types of. Describing a shared type may refer to
 * another, described in turn; each once.
 */
function buildTypes (declarations: Declarations, registry: SchemaLookup, shared: SharedTypes, problems: Error[]): Record<string, ManifestType> {
  const all = new Map<string, Schema>(declarations.types)
  const where = (name: string): string => declarations.types.has(name) ? `type "${name}"` : `shared schema "${name}" (app.addSchema)`
  const built = new Map<string, ManifestType>()
  for (const [name, schema] of all) tryBuild(built, name, () => describeType(schema, registry, where(name)), problems)
  // Grows while it is read: a shared type may refer to another. A registered name is never looked up here.
  for (const [name, schema] of shared.found) tryBuild(built, name, () => describeType(schema, registry, where(name)), problems)
  return sortedMap(built, (type) => type, problems)
}

function tryBuild (built: Map<string, ManifestType>, name: string, build: () => ManifestType, problems: Error[]): void {
  try {
    built.set(name, build())
  } catch (error) {
    problems.push(error as Error)
  }
}

/** The declarations, with the shared schemas a `$ref` may also name. */
function lookupOf (declarations: Declarations, shared: SharedTypes): SchemaLookup {
  return {
    has: (name) => declarations.has(name),
    nameOfId: (id) => declarations.nameOfId(id),
    nameOfSchema: (schema) => declarations.nameOfSchema(schema),
    shared
  }
}

/** A map of the entries in name order; an entry that cannot be built is a problem. */
function sortedMap<V, R> (entries: Map<string, V>, build: (value: V, name: string) => R, problems: Error[]): Record<string, R> {
  const out: Record<string, R> = {}
  // The default sort compares UTF-16 code units, as RFC 8785 does, so served and canonical key orders agree.
  for (const name of [...entries.keys()].sort()) {
    try {
      setOwn(out, name, build(entries.get(name) as V, name))
    } catch (error) {
      problems.push(error as Error)
    }
  }
  return out
}

/** The manifest's `auth`: `scheme` only when it is not `Bearer`, the default every client assumes. */
function manifestAuth (auth: NonNullable<Config['auth']>): ManifestAuth {
  const served: ManifestAuth = { type: auth.type, description: auth.description }
  if (auth.scheme !== undefined && auth.scheme.toLowerCase() !== 'bearer') served.scheme = auth.scheme
  return served
}
