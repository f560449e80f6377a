/**
 * CEL values of a mutation as JSON, as kube converts them (ObjectVal and cel-go's structpb
 * conversion): Object values become objects, ints and doubles numbers, uints numbers, bytes
 * base64, timestamps RFC 3339 and durations like `1.5s`. Maps need string keys; optionals and
 * other types cannot be encoded.
 */
import { CelJsonPatch, CelObject } from '@edict/cel';
import type { JsonObject, JsonValue } from '@edict/foundation';

export class MutationValueError extends Error {
  override readonly name = 'MutationValueError';
}

const MAX_DEPTH = 100;

export function mutationValueToJson(value: unknown, where: string, depth = 0): JsonValue {
  if (depth > MAX_DEPTH) throw new MutationValueError(`${where}: nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new MutationValueError(`${where}: ${value} cannot be encoded as JSON`);
      return value;
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      throw new MutationValueError(`${where}: a ${typeof value} cannot be encoded as JSON`);
  }
  const next = (item: unknown, key: string) => mutationValueToJson(item, `${where}${key}`, depth + 1);
  if (Array.isArray(value)) return value.map((item, i) => next(item, `[${i}]`));
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (value instanceof CelJsonPatch) throw new MutationValueError(`${where}: a JSONPatch cannot be a value`);
  if (value.constructor?.name === 'UnsignedInt') return Number((value as { valueOf(): bigint }).valueOf());
  if (isDuration(value)) return `${Number(value.seconds) + value.nanos / 1e9}s`;
  if (typeof (value as { hasValue?: unknown }).hasValue === 'function')
    throw new MutationValueError(`${where}: an optional cannot be encoded as JSON`);
  const out: JsonObject = {};
  const entries =
    value instanceof Map
      ? [...(value as Map<unknown, unknown>).entries()]
      : Object.entries(value as Record<string, unknown>);
  if (!(value instanceof Map) && !(value instanceof CelObject) && Object.getPrototypeOf(value) !== null) {
    if (Object.getPrototypeOf(value) !== Object.prototype)
      throw new MutationValueError(`${where}: a ${value.constructor?.name ?? 'value'} cannot be encoded as JSON`);
  }
  for (const [key, item] of entries) {
    if (typeof key !== 'string') throw new MutationValueError(`${where}: map key ${String(key)} is not a string`);
    Object.defineProperty(out, key, {
      value: next(item, `.${key}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function isDuration(value: object): value is { readonly seconds: bigint; readonly nanos: number } {
  return (
    typeof (value as { seconds?: unknown }).seconds === 'bigint' &&
    typeof (value as { nanos?: unknown }).nanos === 'number'
  );
}
