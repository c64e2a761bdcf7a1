/**
 * Characters a terminal acts on instead of showing: the C0 controls (ESC starts colour, cursor, title and
 * hyperlink sequences; CR and BS overwrite what was printed), DEL, the C1 controls (U+009B alone is a CSI),
 * the line and paragraph separators, and the bidirectional controls that reorder what is shown (the
 * "Trojan Source" characters: ALM, LRM, RLM, LRE to RLO, LRI to PDI).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex -- the same set without the line feed
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

function escaped (character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/**
 * A string from a manifest or a server (a name, a message) made safe to show on one line: every control
 * character, the line feed included, written as a `\uXXXX` escape.
 */
export function escapeControls (text: string): string {
  return text.replace(CONTROLS, escaped)
}

/**
 * Text about to reach stdout or stderr, with every control character but the line feed escaped. In JSON
 * written by `JSON.stringify` such characters can only stand inside strings, where `\uXXXX` is the JSON
 * escape of the same character: the output still parses to the same value.
 */
export function terminalSafe (text: string): string {
  return text.replace(CONTROLS_BUT_NEWLINE, escaped)
}
