import type { JsonValue } from '@edict/foundation';

/**
 * JSON into CEL values as Kubernetes hands unstructured objects to CEL: whole numbers become CEL
 * `int` (bigint), other numbers `double`; objects become maps. Maps are null-prototype objects so
 * that a key such as `__proto__` stays an ordinary key.
 */
export function toCel(value: JsonValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toCel);
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) out[key] = toCel(item);
  return out;
}
