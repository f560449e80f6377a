/**
 * A small LRU map: parsed forms are cached by their source string so hot paths never re-parse, while
 * a bound keeps memory flat when callers feed ever-new strings (resource data, generated names).
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map iteration order is insertion order: re-inserting marks the entry as most recent.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
