/**
 * Whether a text is one JSON value (RFC 8259), checked without building it: a route's JSON body is
 * spliced into the envelope as it is only when this holds, so the envelope stays valid JSON whatever
 * the route sent.
 */
export function isJsonText (text: string): boolean {
  const end = text.length
  /** The open containers, innermost last: `{` or `[`. */
  const open: number[] = []
  let at = space(text, 0)
  for (;;) {
    const depth = open.length
    at = value(text, at, open)
    if (at < 0) return false
    // A container opened: its first value comes next.
    if (open.length > depth) continue
    // After a value: close what ends here, then a comma leads to the next value.
    for (;;) {
      at = space(text, at)
      if (open.length === 0) return at === end
      const char = text.charCodeAt(at)
      const inner = open[open.length - 1]
      if (char === COMMA) {
        at = inner === BRACE ? member(text, space(text, at + 1)) : space(text, at + 1)
        if (at < 0) return false
        break
      }
      if (char !== (inner === BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) return false
      open.pop()
      at++
    }
  }
}

const BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Reads a value at `at`: a scalar whole, or a container's opening (pushed on `open`, and an object's
 * first key read), so that nesting costs no stack. The index after what was read, or -1.
 */
function value (text: string, at: number, open: number[]): number {
  const char = text.charCodeAt(at)
  if (char === BRACE) {
    const next = space(text, at + 1)
    if (text.charCodeAt(next) === CLOSE_BRACE) return next + 1
    open.push(BRACE)
    return member(text, next)
  }
  if (char === BRACKET) {
    const next = space(text, at + 1)
    if (text.charCodeAt(next) === CLOSE_BRACKET) return next + 1
    open.push(BRACKET)
    return next
  }
  if (char === QUOTE) return string(text, at)
  if (char === 0x74) return text.startsWith('true', at) ? at + 4 : -1
  if (char === 0x66) return text.startsWith('false', at) ? at + 5 : -1
  if (char === 0x6e) return text.startsWith('null', at) ? at + 4 : -1
  return number(text, at)
}

/** A member's key and colon; the index of its value, or -1. */
function member (text: string, at: number): number {
  const next = string(text, at)
  if (next < 0) return -1
  const colon = space(text, next)
  return text.charCodeAt(colon) === COLON ? space(text, colon + 1) : -1
}

function space (text: string, at: number): number {
  for (;;) {
    const char = text.charCodeAt(at)
    if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) return at
    at++
  }
}

function string (text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1
  for (at++; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (char === QUOTE) return at + 1
    if (char < 0x20) return -1
    if (char !== BACKSLASH) continue
    const escaped = text.charCodeAt(++at)
    if (escaped === 0x75) {
      if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(at + 1, at + 5))) return -1
      at += 4
    } else if (!ESCAPES.has(escaped)) {
      return -1
    }
  }
  return -1
}

/** `"`, `\`, `/`, `b`, `f`, `n`, `r`, `t`. */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74])

function number (text: string, at: number): number {
  if (text.charCodeAt(at) === 0x2d) at++
  const first = text.charCodeAt(at)
  if (first === 0x30) at++
  else if (isDigit(first)) at = digits(text, at)
  else return -1
  if (text.charCodeAt(at) === 0x2e) {
    if (!isDigit(text.charCodeAt(at + 1))) return -1
    at = digits(text, at + 1)
  }
  const exponent = text.charCodeAt(at)
  if (exponent === 0x65 || exponent === 0x45) {
    at++
    const sign = text.charCodeAt(at)
    if (sign === 0x2b || sign === 0x2d) at++
    if (!isDigit(text.charCodeAt(at))) return -1
    at = digits(text, at)
  }
  return at
}

function isDigit (char: number): boolean {
  return char >= 0x30 && char <= 0x39
}

function digits (text: string, at: number): number {
  while (isDigit(text.charCodeAt(at))) at++
  return at
}
