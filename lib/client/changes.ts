/** What a change is about and how it changed; see docs/client.md for which kinds break clients. */
export type ChangeKind =
  | 'service.changed'
  | 'command.removed' | 'command.added'
  | 'param.added' | 'param.removed' | 'param.type-changed' | 'param.required-changed' | 'param.default-changed'
  | 'returns.changed' | 'auth.changed' | 'hints.changed' | 'description.changed' | 'tags.changed'
  | 'event.removed' | 'event.added' | 'event.data-changed'
  | 'channel.removed' | 'channel.added'
  | 'type.removed' | 'type.added' | 'type.changed'
  | 'constraint.changed' | 'property.added' | 'property.removed' | 'property.required-changed' | 'field.type-changed'
  | 'default.changed' | 'scopes.changed' | 'examples.changed' | 'deprecated.changed' | 'stream.changed'
  | 'rateLimit.changed' | 'paginated.changed'

export interface Change {
  kind: ChangeKind
  /** What changed: a command, event, channel or type name, `command(param)` for params, or a service field. */
  name: string
  /** One sentence for people. */
  message: string
  /**
   * Where in the manifest, as its keys from the root joined by dots, for a change inside a field (a
   * constraint, a nested property, items): `commands.login.params.user.properties.email.format`.
   */
  path?: string
}

export interface ManifestDiff {
  /** Changes that can break a client written against the older manifest. */
  breaking: Change[]
  nonBreaking: Change[]
}

/** Collects changes in the order they are found, split by whether they break clients. */
export class ChangeLog {
  readonly #diff: ManifestDiff = { breaking: [], nonBreaking: [] }

  add (breaking: boolean, kind: ChangeKind, name: string, message: string, path?: string): void {
    const list = breaking ? this.#diff.breaking : this.#diff.nonBreaking
    list.push(path === undefined ? { kind, name, message } : { kind, name, message, path })
  }

  result (): ManifestDiff {
    return this.#diff
  }
}

export interface NameVisitor<V> {
  removed (name: string, before: V): void
  added (name: string, after: V): void
  kept (name: string, before: V, after: V): void
}

/** Visits every name of two maps once, in code-unit order, so the changes always come out in the same order. */
export function eachName<V> (before: Readonly<Record<string, V>> = {}, after: Readonly<Record<string, V>> = {}, visit: NameVisitor<V>): void {
  // Code-unit order; the names are unique, so no two compare equal.
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort((a, b) => (a < b ? -1 : 1))
  for (const name of names) {
    if (!Object.hasOwn(after, name)) visit.removed(name, before[name])
    else if (!Object.hasOwn(before, name)) visit.added(name, after[name])
    else visit.kept(name, before[name], after[name])
  }
}

/** A value as it appears in a message. */
export function show (value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value)
}

/**
 * The top-level entries of one kind in two manifests: a removed entry breaks clients, an added one does
 * not, and `kept` compares an entry found in both.
 */
export function diffEntries<V> (
  log: ChangeLog,
  kind: 'command' | 'event' | 'channel' | 'type',
  before: Readonly<Record<string, V>> | undefined,
  after: Readonly<Record<string, V>> | undefined,
  kept: NameVisitor<V>['kept']
): void {
  eachName(before, after, {
    removed: (name) => log.add(true, `${kind}.removed`, name, `${kind} ${name} was removed`),
    added: (name) => log.add(false, `${kind}.added`, name, `${kind} ${name} was added`),
    kept
  })
}
