/*
 * JSON as the page shows it: indented, each token with its kind, so the page colours it with one element
 * per token and `textContent`, never by writing markup.
 */

export type TokenKind = 'key' | 'string' | 'number' | 'boolean' | 'null' | 'punctuation' | 'space'

export interface Token {
  text: string
  kind: TokenKind
}

/** A string (then, for a key, the colon after it), a literal, a number, punctuation or white space. */
const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(true|false)|(null)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([{}[\],])|(\s+)/gy

/**
 * The tokens of `value` written as JSON with `indent` spaces (two; `0`: on one line, as a streamed piece
 * is shown); none for a value JSON cannot write.
 */
export function jsonTokens (value: unknown, indent = 2): Token[] {
  const text = JSON.stringify(value, null, indent) as string | undefined
  if (text === undefined) return []
  const tokens: Token[] = []
  for (const match of text.matchAll(TOKEN)) {
    const [, string, colon, boolean, nul, number, punctuation] = match
    if (string !== undefined) {
      tokens.push({ text: string, kind: colon === undefined ? 'string' : 'key' })
      if (colon !== undefined) tokens.push({ text: colon, kind: 'punctuation' })
    } else if (boolean !== undefined) tokens.push({ text: boolean, kind: 'boolean' })
    else if (nul !== undefined) tokens.push({ text: nul, kind: 'null' })
    else if (number !== undefined) tokens.push({ text: number, kind: 'number' })
    else if (punctuation !== undefined) tokens.push({ text: punctuation, kind: 'punctuation' })
    else tokens.push({ text: match[0], kind: 'space' })
  }
  return tokens
}
