import {
  deepEqual,
  isObject,
  type JsonValue,
  parseQuantity,
  quantitiesEqual,
  wildcardMatch,
  goParseFloat,
} from '@edict/foundation';
import { durationPair, durationSeconds } from './go-durations';

/**
 * Equals / NotEquals as Kyverno evaluates them. The key's JSON type picks the comparison; a
 * string key is tried as a duration, then as a quantity, then matched against the value as a
 * wildcard pattern (wildcards count in the value only). NotEquals is not a plain negation:
 * both return false when the key is null, or when the key is a quantity and the value a
 * non-quantity string.
 */
export function evaluateEquals(key: JsonValue, value: JsonValue): boolean {
  if (typeof key === 'boolean') return typeof value === 'boolean' && key === value;
  if (typeof key === 'number') return numberEquals(key, value) === true;
  if (typeof key === 'string') return stringEquals(key, value) === true;
  if (Array.isArray(key)) return Array.isArray(value) && deepEqual(key, value);
  if (isObject(key)) return isObject(value) && deepEqual(key, value);
  return false;
}

export function evaluateNotEquals(key: JsonValue, value: JsonValue): boolean {
  if (typeof key === 'boolean') return typeof value !== 'boolean' || key !== value;
  if (typeof key === 'number') return numberEquals(key, value) !== true;
  if (typeof key === 'string') {
    const equal = stringEquals(key, value);
    return equal === 'quantityMismatch' ? false : equal !== true;
  }
  if (Array.isArray(key)) return !Array.isArray(value) || !deepEqual(key, value);
  if (isObject(key)) return !isObject(value) || !deepEqual(key, value);
  return false;
}

/** A float key equals a number, or a string that Go's ParseFloat reads as the same float. */
function numberEquals(key: number, value: JsonValue): boolean {
  if (typeof value === 'number') return key === value;
  if (typeof value === 'string') return goParseFloat(value) === key;
  return false;
}

/**
 * `true`/`false`, or 'quantityMismatch' when the key parses as a quantity but the value string
 * does not — a case where Kyverno answers false to both Equals and NotEquals.
 */
function stringEquals(key: string, value: JsonValue): boolean | 'quantityMismatch' {
  const durations = durationPair(key, value);
  if (durations) return durationSeconds(durations[0]) === durationSeconds(durations[1]);
  if (typeof value !== 'string') return false;
  const keyQuantity = parseQuantity(key);
  if (keyQuantity) {
    const valueQuantity = parseQuantity(value);
    return valueQuantity ? quantitiesEqual(keyQuantity, valueQuantity) : 'quantityMismatch';
  }
  return wildcardMatch(value, key);
}
