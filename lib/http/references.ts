/**
 * Pipeline references: a string in a step's params that starts with `$` stands for a value of an earlier
 * step. `$prev` is the step just before, `$<as>` the step named so; `.key` and `[index]` segments walk into
 * its result (`$found[0].sku`). `$$x` is the literal string `$x`. A reference that does not resolve is an
 * error naming it, never a silent `undefined`.
 */

/** The results that references can reach: only steps that ran and succeeded are in it. */
export interface StepResults {
  /** The previous step's result, when it succeeded. */
  prev?: { result: unknown }
  /** Results by `as` name, of steps that succeeded. */
  named: Map<string, { result: unknown }>
  /**
   * The JSON size of each object or array of a result that a reference has reached, once measured: a
   * result referenced many times is walked once.
   */
  sizes: WeakMap<object, number>
}

/** `$name`, then `.key` or `[index]` segments; a key is anything but `.`, `[` and `]`. */
const REFERENCE = /^\$([A-Za-z_][A-Za-z0-9_]*)((?:\.[^.[\]]+|\[\d+\])*)$/
const SEGMENT = /\.([^.[\]]+)|\[(\d+)\]/g

/** The step fails with `INVALID_PARAMS` and this message. */
export class UnresolvedReference extends Error {}

/** The step's params, resolved, would pass its byte budget: the step fails with `PAYLOAD_TOO_LARGE`. */
export class OverBudget extends Error {}

/**
 * A copy of `params` with every reference replaced by its value. Objects are rebuilt with a null
 * prototype, so a `__proto__` key stays an ordinary key. Throws `UnresolvedReference`, or `OverBudget`
 * as soon as the JSON of the copy would pass `budget` bytes: the size is counted while resolving, so a
 * request of many references to one large result stops after a budget's worth of work and memory,
 * never after building its whole expansion.
 */
export function resolveReferences (params: Record<string, unknown>, results: StepResults, budget: number): Record<string, unknown> {
  const resolver = new Resolver(results, budget)
  try {
    return resolver.value(params) as Record<string, unknown>
  } catch (error) {
    if (error instanceof UnresolvedReference || error instanceof OverBudget) throw error
    // The walk recurses; JSON.parse, which built the params, does not.
    throw new UnresolvedReference('The params are nested too deeply to look for references in them.')
  }
}

/**
 * Counts the bytes of the JSON text of what it resolves, at least: a string counts its length and quotes,
 * escapes aside. That bounds the work and the memory of a step by its budget; the route's own body limit
 * still judges the exact text.
 */
class Resolver {
  private left: number

  constructor (private readonly results: StepResults, budget: number) {
    this.left = budget
  }

  value (value: unknown): unknown {
    if (typeof value === 'string') {
      if (!value.startsWith('$')) return this.leaf(value)
      const resolved = resolveString(value, this.results)
      this.spend(this.sizeOf(resolved))
      return resolved
    }
    if (Array.isArray(value)) {
      this.spend(value.length + 1)
      return value.map((item) => this.value(item))
    }
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = Object.create(null)
      const keys = Object.keys(value)
      this.spend(keys.length + 1)
      for (const key of keys) {
        this.spend(key.length + 3)
        copy[key] = this.value((value as Record<string, unknown>)[key])
      }
      return copy
    }
    return this.leaf(value)
  }

  private leaf<T> (value: T): T {
    this.spend(leafSize(value))
    return value
  }

  private spend (bytes: number): void {
    this.left -= bytes
    if (this.left < 0) throw new OverBudget()
  }

  /** The JSON size of a value taken from a result, measured at most as far as the budget reaches. */
  private sizeOf (value: unknown): number {
    if (value === null || typeof value !== 'object') return leafSize(value)
    const known = this.results.sizes.get(value)
    if (known !== undefined) return known
    let size = 1
    let spent = 0
    const measure = (bytes: number): void => {
      size += bytes
      spent += bytes
      // Measuring is work too: stop once the part measured alone passes what is left.
      if (spent > this.left) throw new OverBudget()
    }
    if (Array.isArray(value)) {
      for (const item of value) measure(this.sizeOf(item) + 1)
    } else {
      for (const key of Object.keys(value)) measure(key.length + 3 + this.sizeOf((value as Record<string, unknown>)[key]) + 1)
    }
    this.results.sizes.set(value, size)
    return size
  }
}

/** JSON text size of a string (escapes aside), number, boolean or null. */
function leafSize (value: unknown): number {
  if (typeof value === 'string') return value.length + 2
  if (typeof value === 'number') return String(value).length
  if (typeof value === 'boolean') return value ? 4 : 5
  return 4
}

function resolveString (text: string, results: StepResults): unknown {
  if (text.startsWith('$$')) return text.slice(1)
  const match = REFERENCE.exec(text)
  if (match === null) {
    throw new UnresolvedReference(`"${text}" is not a reference ($prev or $<as>, then .key or [index] segments); write "$${text}" for the literal text.`)
  }
  const [, name, path] = match
  const step = name === 'prev' ? results.prev : results.named.get(name)
  if (step === undefined) throw new UnresolvedReference(`Reference "${text}" does not resolve: ${missingStep(name)}.`)
  let current = step.result
  let walked = `$${name}`
  for (const [segment, key, index] of path.matchAll(SEGMENT)) {
    const next = index === undefined ? propertyOf(current, key) : itemOf(current, Number(index))
    if (next === undefined) throw new UnresolvedReference(`Reference "${text}" does not resolve: ${walked} has no ${index === undefined ? `key "${key}"` : `item ${index}`}.`)
    current = next.value
    walked += segment
  }
  return current
}

function missingStep (name: string): string {
  return name === 'prev' ? 'there is no earlier step that succeeded' : `no earlier step that succeeded has as: "${name}"`
}

/** Own keys of plain objects only: a reference never reaches a prototype. */
function propertyOf (value: unknown, key: string): { value: unknown } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined
  return { value: (value as Record<string, unknown>)[key] }
}

function itemOf (value: unknown, index: number): { value: unknown } | undefined {
  if (!Array.isArray(value) || index >= value.length) return undefined
  return { value: value[index] }
}
