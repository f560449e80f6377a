import type { JsonValue } from '../json';

/**
 * Sizes of arrays and objects measured completely, by identity. Values are shared, never copied
 * (`[v, v]` holds `v` twice), so memoising keeps a walk over such a graph linear in its nodes
 * even when its JSON text would be exponential. A memo lives as long as the request it measures
 * (the engine keeps one per request), so the request's own data is walked once for all policies.
 */
export type SizeMemo = Map<object, number>;

/** Arrays and objects with fewer nodes are cheaper to walk again than to remember. */
const MEMO_MIN_NODES = 8;
let visited = 0;

/**
 * The JSON-encoded size of `value` (strings counted in characters, numbers as 8), exact up to
 * `limit`; past it the walk stops and returns some size above `limit`.
 */
export function jsonSizeWithin(value: JsonValue, limit: number, memo: SizeMemo): number {
  return sizeOf(value, limit, memo);
}

function sizeOf(value: JsonValue, remaining: number, memo: SizeMemo): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? 8 : 5;
  const known = memo.get(value);
  if (known !== undefined) return known;
  const before = visited++;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      total += sizeOf(item, remaining - total, memo) + 1;
      if (total > remaining) return total;
    }
  } else {
    for (const key in value) {
      total += key.length + 4 + sizeOf(value[key] as JsonValue, remaining - total, memo);
      if (total > remaining) return total;
    }
  }
  if (visited - before >= MEMO_MIN_NODES) memo.set(value, total);
  return total;
}
