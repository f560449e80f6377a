import { goQuote, isObject, type JsonValue } from '@edict/foundation';

/** Go's `%+q` of a string slice: `["a" "b"]`. */
export function goQuotedList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** Go's `%v` of a string slice: `[a b]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** The reflect kind name Go would print for a decoded JSON value. */
export function goKind(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return 'invalid';
  if (Array.isArray(value)) return 'slice';
  if (isObject(value)) return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/** A JSON-pointer-like path as Kyverno's traversal prints it: `/validate/pattern/spec`. */
export function pointer(segments: readonly (string | number)[]): string {
  return `/${segments.join('/')}`;
}
