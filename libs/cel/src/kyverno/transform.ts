import type { Environment } from '@marcbachmann/cel-js';
import { celError } from '../libraries/errors';
import { namespaceFunction } from '../libraries/namespace';

/**
 * Kyverno's transform library: `listObjToMap(keys, values, keyField, valueField)` pairs the i-th
 * object of each list into `{keys[i][keyField]: values[i][valueField]}`; also
 * `transform.listObjToMap`.
 */
export function registerTransform(env: Environment): void {
  env.registerFunction('listObjToMap(list, list, string, string): map', listObjToMap);
  namespaceFunction(env, 'transform.listObjToMap(list, list, string, string): map', listObjToMap);
}

function listObjToMap(
  keys: unknown[],
  values: unknown[],
  keyField: string,
  valueField: string,
): Record<string, unknown> {
  if (keys.length !== values.length) {
    throw celError(`listObjToMap must take lists of equal length. list1: ${keys.length}, list2: ${values.length}`);
  }
  const out: Record<string, unknown> = Object.create(null);
  keys.forEach((entry, i) => {
    const key = asMap(entry, 'the key object list')?.[keyField];
    if (typeof key !== 'string') {
      throw celError('the passed key name cannot be handled as a string in the key object list');
    }
    const value = asMap(values[i], 'the value object list');
    if (!value) throw celError('object cannot be handled as a map string to any in the value object list');
    out[key] = value[valueField] ?? null;
  });
  return out;
}

function asMap(value: unknown, where: string): Record<string, unknown> | undefined {
  if (value instanceof Map) return Object.fromEntries(value) as Record<string, unknown>;
  if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    return value as Record<string, unknown>;
  }
  if (where === 'the key object list') throw celError(`object cannot be handled as a map, ${typeof value}`);
  return undefined;
}
