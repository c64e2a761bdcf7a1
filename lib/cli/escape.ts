import { controlCharacters, unicodeEscape } from '../util/control-characters.js'

/** What a terminal acts on instead of showing (see controlCharacters). */
const CONTROLS = controlCharacters()
const CONTROLS_BUT_NEWLINE = controlCharacters('\n')

/**
 * A string from a manifest or a server (a name, a message) made safe to show on one line: every control
 * character, the line feed included, written as a `\uXXXX` escape.
 */
export function escapeControls (text: string): string {
  return text.replace(CONTROLS, unicodeEscape)
}

/**
 * Text about to reach stdout or stderr, with every control character but the line feed escaped. In JSON
 * written by `JSON.stringify` such characters can only stand inside strings, where `\uXXXX` is the JSON
 * escape of the same character: the output still parses to the same value.
 */
export function terminalSafe (text: string): string {
  return text.replace(CONTROLS_BUT_NEWLINE, unicodeEscape)
}
