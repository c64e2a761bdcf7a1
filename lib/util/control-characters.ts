/**
 * Characters that act instead of showing, in a terminal or wherever remote text is read: the C0 controls
 * (ESC starts colour, cursor, title and hyperlink sequences; CR and BS overwrite what was printed), DEL, the
 * C1 controls (U+009B alone is a CSI), the line and paragraph separators, and the bidirectional controls
 * that reorder what is shown (the "Trojan Source" characters: ALM, LRM, RLM, LRE to RLO, LRI to PDI). The
 * one list: the CLI escapes them, the stdio MCP bridge strips them.
 */
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'

/**
 * A global pattern matching each control character of the list but those in `kept` (e.g. `'\n'`). The
 * kept ones are taken out of the class itself (the `v` flag's class subtraction): one class test per
 * character, as fast as a class written out by hand.
 */
export function controlCharacters (kept = ''): RegExp {
  if (kept === '') return new RegExp(`[${CONTROLS}]`, 'g')
  const escapes = [...kept].map(unicodeEscape).join('')
  return new RegExp(`[[${CONTROLS}]--[${escapes}]]`, 'gv')
}

/** A character of the list as a `\uXXXX` escape: the same in JSON, JavaScript and regular expressions. */
export function unicodeEscape (character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
}
