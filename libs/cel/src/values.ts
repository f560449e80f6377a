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
  // Indexed loops: this runs over every request's objects (no entry arrays, no callbacks).
  if (Array.isArray(value)) {
    const list = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) list[i] = toCel(value[i]);
    return list;
  }
  const out: Record<string, unknown> = Object.create(null);
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    out[key] = toCel(value[key]);
  }
  return out;
}
