import { isObject as isJsonObject, type JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { toCel } from '../values';

/** A Kubernetes object from a port, as CEL sees unstructured objects (whole numbers are ints). */
export function toCelObject(value: unknown, where: string): unknown {
  if (!isJsonObject(value as JsonValue)) throw celError(`${where}: the answer is not an object`);
  return toCel(value as JsonValue);
}
