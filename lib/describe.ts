/** How long a described value may get in an error message before it is cut. */
const MAX_DESCRIPTION = 120

/**
 * A short, readable rendering of any value for an error message. Never throws: a BigInt, a Symbol, a
 * function, a cyclic or very deep object each get a description of their own, where `JSON.stringify`
 * would throw or say nothing.
 */
export function describeValue (value: unknown): string {
  switch (typeof value) {
    case 'undefined': return 'nothing'
    case 'bigint': return `the BigInt ${value}n`
    case 'symbol': return String(value)
    case 'function': return 'a function'
    case 'string': return cut(JSON.stringify(value))
  }
  try {
    return cut(JSON.stringify(value, jsonSafe) ?? String(value))
  } catch {
    // A cycle, or nesting deeper than the stack allows.
    return Array.isArray(value) ? 'an array that cannot be written as JSON' : 'an object that cannot be written as JSON'
  }
}

/** Writes what JSON cannot hold as a readable marker, so the rest of the value still shows. */
function jsonSafe (_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return '[function]'
  if (typeof value === 'symbol') return `[${String(value)}]`
  return value
}

function cut (text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text
}
