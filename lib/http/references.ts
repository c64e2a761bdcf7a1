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
}

/** `$name`, then `.key` or `[index]` segments; a key is anything but `.`, `[` and `]`. */
const REFERENCE = /^\$([A-Za-z_][A-Za-z0-9_]*)((?:\.[^.[\]]+|\[\d+\])*)$/
const SEGMENT = /\.([^.[\]]+)|\[(\d+)\]/g

/** The only error `resolveReferences` throws; the step fails with `INVALID_PARAMS` and this message. */
export class UnresolvedReference extends Error {}

/**
 * A copy of `params` with every reference replaced by its value. Objects are rebuilt with a null
 * prototype, so a `__proto__` key stays an ordinary key. Throws `UnresolvedReference`.
 */
export function resolveReferences (params: Record<string, unknown>, results: StepResults): Record<string, unknown> {
  try {
    return resolveValue(params, results) as Record<string, unknown>
  } catch (error) {
    if (error instanceof UnresolvedReference) throw error
    // The walk recurses; JSON.parse, which built the params, does not.
    throw new UnresolvedReference('The params are nested too deeply to look for references in them.')
  }
}

function resolveValue (value: unknown, results: StepResults): unknown {
  if (typeof value === 'string') return value.startsWith('$') ? resolveString(value, results) : value
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, results))
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = Object.create(null)
    for (const key of Object.keys(value)) copy[key] = resolveValue((value as Record<string, unknown>)[key], results)
    return copy
  }
  return value
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
