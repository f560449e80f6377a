import type { JsonObject, JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';

/**
 * JSON decoded the way Go's `encoding/json` decodes into `any` (what Kyverno's http, json, yaml,
 * x509 and image data libraries hand to CEL): every number is a float64, so a CEL `double`.
 * Maps are null-prototype objects, as CEL maps are here.
 */
export function fromDecodedJson(value: JsonValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromDecodedJson);
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) out[key] = fromDecodedJson(item);
  return out;
}

/**
 * A CEL value as JSON (what Kyverno gets converting CEL values to native ones before encoding):
 * ints and doubles become numbers, bytes base64, timestamps RFC 3339, durations like `1.5s`.
 * Non-string map keys are an error, as in Kyverno.
 */
export function celToJson(value: unknown, where: string): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw celError(`${where}: ${value} cannot be encoded as JSON`);
      return value;
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      throw celError(`${where}: a ${typeof value} cannot be encoded as JSON`);
  }
  if (Array.isArray(value)) return value.map((item) => celToJson(item, where));
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (isDuration(value)) return `${Number(value.seconds) + value.nanos / 1e9}s`;
  if (value instanceof Map) {
    const out: JsonObject = {};
    for (const [key, item] of value) {
      if (typeof key !== 'string') throw celError(`${where}: map key ${String(key)} is not a string`);
      out[key] = celToJson(item, where);
    }
    return out;
  }
  const unwrapped = (value as { value?: unknown; hasValue?: () => boolean }).hasValue;
  if (typeof unwrapped === 'function') throw celError(`${where}: an optional cannot be encoded as JSON`);
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) out[key] = celToJson(item, where);
  return out;
}

/** A CEL `map(string, string)` argument as a plain record (headers, label selectors). */
export function stringMap(value: unknown, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || value === undefined) return out;
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>);
  for (const [key, item] of entries) {
    if (typeof key !== 'string' || typeof item !== 'string') {
      throw celError(`${where}: expected a map of strings to strings`);
    }
    out[key] = item;
  }
  return out;
}

/** A CEL duration (cel-js does not export its class): whole seconds as a bigint and nanos. */
export function isDuration(value: unknown): value is { readonly seconds: bigint; readonly nanos: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { seconds?: unknown }).seconds === 'bigint' &&
    typeof (value as { nanos?: unknown }).nanos === 'number'
  );
}
