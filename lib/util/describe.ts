/** How long a described value may get in an error message before it is cut. */
const MAX_DESCRIPTION = 120

/**
 * A short, readable rendering of any value for an error message. Never throws: a BigInt, a Symbol, a
 * function, a cyclic or very deep object each get a description of their own, where `JSON.stringify`
 * would throw or say nothing.
 */
export function describeValue (value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'symbol') return String(value)
  if (typeof value === 'bigint') return `the BigInt ${value}n`
  let text: string | undefined
  try {
    text = JSON.stringify(value, (_key, item: unknown) => typeof item === 'bigint' ? `${item}n` : item)
  } catch {
    // A cycle, or nesting deeper than the stack allows.
  }
  return text === undefined ? 'a value that cannot be written as JSON' : cut(text)
}

function cut (text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text
}
