import { createHash } from 'node:crypto';
import { BoundedCache } from '@edict/foundation';

/**
 * Results of successful verifications, bounded in entries (least recently used go first) and in
 * time (an entry older than `ttlMs` is gone), as Kyverno's image verification cache.
 */
export class VerificationCache {
  private readonly entries: BoundedCache<{ value: unknown; expires: number }>;

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error('VerificationCache: maxEntries must be a positive integer');
    if (!(ttlMs > 0)) throw new Error('VerificationCache: ttlMs must be positive');
    this.entries = new BoundedCache(maxEntries);
  }

  /** A stable short key for any JSON-able parts (trust material included). */
  static key(...parts: unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // An expired entry stays until evicted; it is never answered.
    return entry.expires > this.now() ? (entry.value as T) : undefined;
  }

  set(key: string, value: unknown): void {
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
