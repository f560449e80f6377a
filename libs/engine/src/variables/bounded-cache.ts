/**
 * A small LRU map: parsed forms are cached by their source string so hot paths never re-parse, while
 * bounds keep memory flat when callers feed ever-new strings (resource data, generated names): at
 * most `limit` entries, and no entry for a key longer than `maxKeyLength` (such a key is parsed each
 * time; a request can carry megabytes of distinct text, and its parsed forms are as large).
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly limit: number,
    private readonly maxKeyLength = 1024,
  ) {}

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
    if (key.length > this.maxKeyLength) return;
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The cached value, or `create(key)` remembered (a thrown error is not). */
  getOrCreate(key: string, create: (key: string) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = create(key);
      this.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
