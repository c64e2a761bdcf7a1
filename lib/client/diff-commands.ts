import { isDeepStrictEqual } from 'node:util'
import type { ManifestCommand, ManifestParam, ManifestTypeRef, ManifestHints } from '../manifest/types.js'
import { diffEntries, eachName, show, type ChangeLog } from './changes.js'

export function diffCommands (log: ChangeLog, before: Record<string, ManifestCommand>, after: Record<string, ManifestCommand>): void {
  diffEntries(log, 'command', before, after, (name, old, now) => diffCommand(log, name, old, now))
}

function diffCommand (log: ChangeLog, name: string, old: ManifestCommand, now: ManifestCommand): void {
  diffParams(log, name, old.params, now.params)
  diffReturns(log, name, old.returns, now.returns)
  diffAuth(log, name, old.auth, now.auth)
  diffHints(log, name, old.hints, now.hints)
  if (old.description !== now.description) log.add(false, 'description.changed', name, `command ${name}: description changed`)
  diffTags(log, name, old.tags, now.tags)
}

function diffParams (log: ChangeLog, command: string, before?: Record<string, ManifestParam>, after?: Record<string, ManifestParam>): void {
  eachName(before, after, {
    removed: (param) => log.add(true, 'param.removed', `${command}(${param})`, `command ${command}: param ${param} was removed`),
    added: (param, now) => {
      const breaking = now.required && now.default === undefined
      const what = breaking ? 'required param' : now.required ? 'required param with a default' : 'optional param'
      log.add(breaking, 'param.added', `${command}(${param})`, `command ${command}: ${what} ${param} was added`)
    },
    kept: (param, old, now) => diffParam(log, command, param, old, now)
  })
}

function diffParam (log: ChangeLog, command: string, param: string, old: ManifestParam, now: ManifestParam): void {
  const name = `${command}(${param})`
  const subject = `command ${command}: param ${param}`
  if (old.type !== now.type) log.add(true, 'param.type-changed', name, `${subject} is now ${now.type} instead of ${old.type}`)
  if (old.required !== now.required) {
    const [was, is] = now.required ? ['optional', 'required'] : ['required', 'optional']
    log.add(now.required, 'param.required-changed', name, `${subject} is now ${is} instead of ${was}`)
  }
  if (!isDeepStrictEqual(old.default, now.default)) {
    log.add(false, 'param.default-changed', name, `${subject}: default changed from ${show(old.default)} to ${show(now.default)}`)
  }
  if (old.description !== now.description) log.add(false, 'description.changed', name, `${subject}: description changed`)
}

function diffReturns (log: ChangeLog, command: string, old?: ManifestTypeRef, now?: ManifestTypeRef): void {
  if (old?.type !== now?.type) {
    log.add(true, 'returns.changed', command, `command ${command}: returns ${now?.type ?? 'nothing'} instead of ${old?.type ?? 'nothing'}`)
  } else if (old?.description !== now?.description) {
    log.add(false, 'description.changed', command, `command ${command}: description of the return value changed`)
  }
}

function diffAuth (log: ChangeLog, command: string, old?: string, now?: string): void {
  if (old === now) return
  const required = now === 'required'
  log.add(required, 'auth.changed', command, `command ${command} ${required ? 'now requires' : 'no longer requires'} auth`)
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
