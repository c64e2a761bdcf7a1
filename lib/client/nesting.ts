/**
 * How deep a manifest may nest, counting the manifest object as level 1. Only a param's `default` is free
 * to nest (an object or array default is level 6), so this leaves defaults 251 levels. The checksum, the diff and printing
 * walk values recursively; a limit checked up front, without recursion, keeps a hostile manifest from
 * overflowing the stack (a raw `RangeError`) and makes the refusal the same on every machine.
 */
export const MAX_NESTING_DEPTH = 256

/** Pointer segments shown before the rest of a too-deep path is cut to `…`. */
const SHOWN_SEGMENTS = 8

interface Frame {
  value: Record<string, unknown>
  keys: string[]
  next: number
}

/**
 * The JSON pointer of the first object or array nested deeper than `limit` levels in `value` (which sits
 * at the pointer segments `base`), shortened after a few segments; `undefined` when there is none. Walks
 * with its own stack, so any depth, and a cycle, is safe: a cycle is simply too deep.
 */
export function tooDeep (value: unknown, limit: number, base: string[]): string | undefined {
  if (!isContainer(value)) return undefined
  const stack: Frame[] = [frameOf(value)]
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]
    if (frame.next === frame.keys.length) {
      stack.pop()
      continue
    }
    const child = frame.value[frame.keys[frame.next++]]
    if (!isContainer(child)) continue
    if (stack.length === limit) return pointerOf(stack, base)
    stack.push(frameOf(child))
  }
  return undefined
}

function isContainer (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object'
}

function frameOf (value: Record<string, unknown>): Frame {
  return { value, keys: Object.keys(value), next: 0 }
}

/** The keys that led to the too-deep value, as a JSON pointer (RFC 6901 escapes). */
function pointerOf (stack: Frame[], base: string[]): string {
  const segments = [...base, ...stack.map((frame) => frame.keys[frame.next - 1])].map((key) => key.replaceAll('~', '~0').replaceAll('/', '~1'))
  // A path past the limit is always longer than what is shown.
  return `/${[...segments.slice(0, SHOWN_SEGMENTS), '…'].join('/')}`
}

/** The error line for a value nested too deeply, as `verifyManifest` reports it. */
export function tooDeepError (pointer: string): string {
  return `${pointer}: nested too deeply (a manifest may nest ${MAX_NESTING_DEPTH} levels); refused`
}
