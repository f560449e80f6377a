import type { JsonValue } from '../json';
import { goFloatV } from './floats';
import { sortGoOrder } from './strings';

/**
 * Go's `%v` and `%T` of a decoded JSON value. Kubernetes decodes a resource's integers as int64
 * and its other numbers as float64, while encoding/json (policies, context data, re-decoded
 * values) makes every number a float64; JSON in JavaScript has one number type, so `NumberOrigin`
 * says which side a number came from.
 */
export type NumberOrigin = 'resource' | 'decoded';

const INT64_BOUND = 2 ** 63;

/** Whether a resource number would be an int64 in Kubernetes' unstructured form. */
export function isInt64(n: number): boolean {
  return Number.isInteger(n) && n < INT64_BOUND && n >= -INT64_BOUND;
}

/** An int64's decimal digits (BigInt prints every digit where String() would switch to exponent form). */
export function goIntText(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** `fmt.Sprint(v)`: floats as `%g`, nil as `<nil>`, slices as `[a b]`, maps as `map[k:v]` sorted by key. */
export function goValueText(value: JsonValue | undefined, origin: NumberOrigin = 'decoded'): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return origin === 'resource' && isInt64(value) ? goIntText(value) : goFloatV(value);
  if (Array.isArray(value)) return `[${value.map((item) => goValueText(item, origin)).join(' ')}]`;
  const keys = sortGoOrder(Object.keys(value));
  return `map[${keys.map((key) => `${key}:${goValueText(value[key], origin)}`).join(' ')}]`;
}

/** `%T` of a decoded JSON value. */
export function goTypeName(value: JsonValue | undefined, origin: NumberOrigin = 'decoded'): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return origin === 'resource' && isInt64(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}
