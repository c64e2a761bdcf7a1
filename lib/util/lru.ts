/**
 * At most `max` values by key, the least recently used dropped first: a Map keeps insertion order, and a
 * value read is moved to its end.
 */
export class Lru<T> {
  private readonly values = new Map<string, T>()

  constructor (private readonly max: number) {}

  /** The value of `key`, made with `make` on a miss. */
  get (key: string, make: () => T): T {
    const hit = this.values.get(key)
    if (hit !== undefined) {
      this.values.delete(key)
      this.values.set(key, hit)
      return hit
    }
    const made = make()
    if (this.values.size >= this.max) this.values.delete(this.values.keys().next().value as string)
    this.values.set(key, made)
    return made
  }
}
