/**
 * A small LRU map: parsed forms are cached by their source string so hot paths never re-parse, while
 * bounds keep memory flat when callers feed ever-new strings (resource data, generated names): at
 * most `limit` entries, and no entry for a key longer than `maxKeyLength` (such a key is parsed each
 * time; a request can carry megabytes of distinct text, and its parsed forms are as large).
 *
 * A hit moves its entry to the recent end only when it sits in the older half: moving means a
 * delete and a re-insert, and doing that on every hit made the lookups of a few hot keys (rule
 * kinds, JMESPath queries) cost more than the work they save (the Map keeps refilling its
 * deleted slots and rehashing).
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; stamp: number }>();
  /** Counts insertions; an entry's stamp says when it last went to the recent end. */
  private clock = 0;

  constructor(
    private readonly limit: number,
    private readonly maxKeyLength = 1024,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.stamp <= this.clock - Math.ceil(this.limit / 2)) {
      // Map iteration order is insertion order: re-inserting marks the entry as most recent.
      this.entries.delete(key);
      entry.stamp = ++this.clock;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength) return;
    this.entries.delete(key);
    this.entries.set(key, { value, stamp: ++this.clock });
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
