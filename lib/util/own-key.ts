/**
 * Sets `key` on `object` as an own enumerable property, `__proto__` included (plain assignment would set
 * the prototype instead). A plain object stays in V8's fast mode, where a null-prototype object starts as
 * a dictionary: several times slower to fill and to serialise, which shows at 10,000 commands.
 */
export function setOwn (object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  else object[key] = value
}

/** The value of an own property only: `__proto__`, `constructor` and the like are ordinary keys, never inherited. */
export function ownValue<T> (object: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined
}
