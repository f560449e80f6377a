import type { JsonValue } from '../json';

/**
 * Sizes of arrays and objects measured completely, by identity. Values are shared, never copied
 * (`[v, v]` holds `v` twice), so memoising keeps a walk over such a graph linear in its nodes
 * even when its JSON text would be exponential.
 */
const measured = new WeakMap<object, number>();

/**
 * The JSON-encoded size of `value` (strings counted in characters, numbers as 8), exact up to
 * `limit`; past it the walk stops and returns some size above `limit`.
 */
export function jsonSizeWithin(value: JsonValue, limit: number): number {
  return sizeOf(value, limit);
}

function sizeOf(value: JsonValue, remaining: number): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? 8 : 5;
  const known = measured.get(value);
  if (known !== undefined) return known;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      total += sizeOf(item, remaining - total) + 1;
      if (total > remaining) return total;
    }
  } else {
    for (const key of Object.keys(value)) {
      total += key.length + 4 + sizeOf(value[key] as JsonValue, remaining - total);
      if (total > remaining) return total;
    }
  }
  measured.set(value, total);
  return total;
}
