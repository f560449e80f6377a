import type { JsonValue } from '../json';

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

/** A CEL result back to JSON (for messages and reports): ints within 2^53 become numbers. */
export function fromCel(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value;
  if (Array.isArray(value) || value instanceof Set) return [...value].map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v)]));
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) out[key] = fromCel(item);
    return out;
  }
  return String(value);
}
