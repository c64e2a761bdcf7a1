import type { McpLimits } from '../options.js'

/**
 * The JSON-RPC error of a listen or a session refused for a limit: a code of the range JSON-RPC leaves to
 * servers (the SDK's own refusal of a listen past its limit is -32603, "internal error", which says nothing).
 */
export const LIMIT_REACHED = -32004

/** A refusal for a limit, with the option that sets it. */
export interface LimitRefusal {
  code: number
  message: string
  data: { limit: string, value: number }
}

/**
 * The listens and subscription sessions open at once, per subject and in all (docs/mcp.md#bounds): one subject
 * cannot take every slot and lock the others out.
 */
export class ListenSlots {
  private readonly bySubject = new Map<string, number>()
  private total = 0

  constructor (private readonly limits: Pick<McpLimits, 'maxListensPerSubject' | 'maxListens'>) {}

  /** A slot for `subject` (its release, to call once), or the refusal naming the limit it would pass. */
  take (subject: string): (() => void) | LimitRefusal {
    const held = this.bySubject.get(subject) ?? 0
    const { maxListensPerSubject, maxListens } = this.limits
    if (held >= maxListensPerSubject) {
      return refusal('mcp.maxListensPerSubject', maxListensPerSubject, `this caller already holds ${held} open listens or subscription sessions, the most one subject may (mcp.maxListensPerSubject: ${maxListensPerSubject}); close one first`)
    }
    if (this.total >= maxListens) {
      return refusal('mcp.maxListens', maxListens, `the server holds ${this.total} open listens or subscription sessions, the most it takes (mcp.maxListens: ${maxListens}); try again later`)
    }
    this.bySubject.set(subject, held + 1)
    this.total++
    return () => {
      this.total--
      const left = (this.bySubject.get(subject) as number) - 1
      if (left === 0) this.bySubject.delete(subject)
      else this.bySubject.set(subject, left)
    }
  }
}

function refusal (limit: string, value: number, why: string): LimitRefusal {
  return { code: LIMIT_REACHED, message: `Limit reached: ${why}.`, data: { limit, value } }
}
