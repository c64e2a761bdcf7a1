import { isDeepStrictEqual } from 'node:util'
import type { ManifestCommand, ManifestParam, ManifestTypeRef, ManifestHints } from '../manifest/types.js'
import { diffEntries, eachName, show, type ChangeLog } from './changes.js'
import { diffDetails, mustBeSupplied, retypeBreaks } from './diff-fields.js'
import { diffPagination, diffRateLimit } from './diff-pagination.js'

export function diffCommands (log: ChangeLog, before: Record<string, ManifestCommand>, after: Record<string, ManifestCommand>): void {
  diffEntries(log, 'command', before, after, (name, old, now) => diffCommand(log, name, old, now))
}

function diffCommand (log: ChangeLog, name: string, old: ManifestCommand, now: ManifestCommand): void {
  diffParams(log, name, old.params, now.params)
  diffReturns(log, name, old.returns, now.returns)
  diffAuth(log, name, old.auth, now.auth)
  diffScopes(log, name, old.requiredScopes, now.requiredScopes)
  diffHints(log, name, old.hints, now.hints)
  // Either way a buffered call still works: whether pieces are streamed is the caller's to ask.
  if (old.stream !== now.stream) log.add(false, 'stream.changed', name, `command ${name} ${now.stream === true ? 'now streams its result' : 'no longer streams its result'}`)
  diffRateLimit(log, name, old.rateLimit, now.rateLimit)
  diffPagination(log, name, old.paginated, now.paginated)
  if (old.description !== now.description) log.add(false, 'description.changed', name, `command ${name}: description changed`)
  diffTags(log, name, old.tags, now.tags)
  if (!isDeepStrictEqual(old.examples, now.examples)) log.add(false, 'examples.changed', name, `command ${name}: examples changed`)
  if (old.deprecated !== now.deprecated) {
    log.add(false, 'deprecated.changed', name, `command ${name} is ${now.deprecated === true ? 'now' : 'no longer'} deprecated`)
  }
}

function diffParams (log: ChangeLog, command: string, before?: Record<string, ManifestParam>, after?: Record<string, ManifestParam>): void {
  eachName(before, after, {
    removed: (param) => log.add(true, 'param.removed', `${command}(${param})`, `command ${command}: param ${param} was removed`),
    added: (param, now) => {
      const breaking = mustBeSupplied(now)
      const what = breaking ? 'required param' : now.required ? 'required param with a default' : 'optional param'
      log.add(breaking, 'param.added', `${command}(${param})`, `command ${command}: ${what} ${param} was added`)
    },
    kept: (param, old, now) => diffParam(log, command, param, old, now)
  })
}

function diffParam (log: ChangeLog, command: string, param: string, old: ManifestParam, now: ManifestParam): void {
  const name = `${command}(${param})`
  const subject = `command ${command}: param ${param}`
  const retyped = old.type !== now.type
  if (retyped) log.add(retypeBreaks(now.type), 'param.type-changed', name, `${subject} is now ${now.type} instead of ${old.type}`)
  if (old.required !== now.required) {
    const [was, is] = now.required ? ['optional', 'required'] : ['required', 'optional']
    log.add(now.required, 'param.required-changed', name, `${subject} is now ${is} instead of ${was}`)
  }
  if (!isDeepStrictEqual(old.default, now.default)) {
    log.add(false, 'param.default-changed', name, `${subject}: default changed from ${show(old.default)} to ${show(now.default)}`)
  }
  if (old.description !== now.description) log.add(false, 'description.changed', name, `${subject}: description changed`)
  // The constraints of another type are not comparable: the new type is the change.
  if (!retyped) diffDetails(log, { name, subject, path: `commands.${command}.params.${param}` }, old, now)
}

function diffReturns (log: ChangeLog, command: string, old?: ManifestTypeRef, now?: ManifestTypeRef): void {
  if (old === undefined || now === undefined || old.type !== now.type) {
    if (old?.type !== now?.type) log.add(true, 'returns.changed', command, `command ${command}: returns ${now?.type ?? 'nothing'} instead of ${old?.type ?? 'nothing'}`)
    return
  }
  if (old.description !== now.description) {
    log.add(false, 'description.changed', command, `command ${command}: description of the return value changed`)
  }
  diffDetails(log, { name: command, subject: `command ${command}: return value`, path: `commands.${command}.returns` }, old, now)
}

/** Auth that becomes required breaks a client without a token; `'optional'` or none lets every call through. */
function diffAuth (log: ChangeLog, command: string, old?: string, now?: string): void {
  if (old === now) return
  const required = now === 'required'
  const what = required ? 'now requires auth' : old === 'required' ? 'no longer requires auth' : `auth changed from ${show(old)} to ${show(now)}`
  log.add(required, 'auth.changed', command, `command ${command} ${what}`)
}

/** A scope a caller's token must now carry breaks it; one that goes does not. Compared as a set. */
function diffScopes (log: ChangeLog, command: string, old: string[] = [], now: string[] = []): void {
  const added = now.filter((scope) => !old.includes(scope))
  const removed = old.filter((scope) => !now.includes(scope))
  if (added.length === 0 && removed.length === 0) return
  const parts = [added.length > 0 && `added ${show(added)}`, removed.length > 0 && `removed ${show(removed)}`].filter(Boolean)
  log.add(added.length > 0, 'scopes.changed', command, `command ${command}: required scopes ${parts.join(', ')}`)
}

/**
 * Hints are promises to the client: `idempotent: true` and `sideEffects: false`. Withdrawing one (by
 * changing or dropping it) breaks; anything else does not.
 */
function diffHints (log: ChangeLog, command: string, old: ManifestHints = {}, now: ManifestHints = {}): void {
  if (isDeepStrictEqual(old, now)) return
  const withdrawn: string[] = []
  if (old.idempotent === true && now.idempotent !== true) withdrawn.push('no longer idempotent')
  if (old.sideEffects === false && now.sideEffects !== false) withdrawn.push('may now have side effects')
  const why = withdrawn.length > 0 ? ` (${withdrawn.join(', ')})` : ''
  log.add(withdrawn.length > 0, 'hints.changed', command, `command ${command}: hints changed from ${show(old)} to ${show(now)}${why}`)
}

/** Tags are labels: compared as a set. */
function diffTags (log: ChangeLog, command: string, old: string[] = [], now: string[] = []): void {
  const added = now.filter((tag) => !old.includes(tag))
  const removed = old.filter((tag) => !now.includes(tag))
  if (added.length === 0 && removed.length === 0) return
  const parts = [added.length > 0 && `added ${show(added)}`, removed.length > 0 && `removed ${show(removed)}`].filter(Boolean)
  log.add(false, 'tags.changed', command, `command ${command}: tags ${parts.join(', ')}`)
}
