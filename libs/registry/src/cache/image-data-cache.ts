/**
 * A bounded cache of resolved image data: at most `maxEntries` (least recently used go first),
 * each for `ttlMs`. Concurrent lookups of the same key share one fetch; failures are not kept.
 */
import type { JsonObject } from '@edict/foundation';

interface Entry {
  readonly value: Promise<JsonObject>;
  readonly expiresAt: number;
}

export class ImageDataCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value for the key, or the loader's (cached once it succeeds). */
  get(key: string, load: () => Promise<JsonObject>): Promise<JsonObject> {
    if (this.maxEntries === 0 || this.ttlMs === 0) return load();
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) {
      // Re-insert: Map order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.value;
    }
    this.entries.delete(key);
    const value = load();
    const entry = { value, expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
