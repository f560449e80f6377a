import {
  type JsonValue,
  compareQuantities,
  parseQuantity,
  compareSemver,
  parseSemver,
  goParseFloat,
} from '@edict/foundation';
import { durationPair, durationSeconds } from './go-durations';

/** `(a, b) => a OP b` for GreaterThan, GreaterThanOrEquals, LessThan, LessThanOrEquals. */
export type Ordering = (a: number, b: number) => boolean;

/**
 * Kyverno's numeric operators. A string key is tried, in order, as a duration (paired with a
 * duration string or a number of seconds), a quantity (value must be a quantity string), a float,
 * and finally a strict semantic version. Anything else compares false rather than erroring.
 */
export function evaluateNumeric(key: JsonValue, value: JsonValue, holds: Ordering): boolean {
  if (typeof key === 'number') return compareFloatKey(key, value, holds);
  if (typeof key === 'string') return compareStringKey(key, value, holds);
  return false;
}

function compareFloatKey(key: number, value: JsonValue, holds: Ordering): boolean {
  if (typeof value === 'number') return holds(key, value);
  if (typeof value !== 'string') return false;
  const durations = durationPair(key, value);
  if (durations) return holds(durationSeconds(durations[0]), durationSeconds(durations[1]));
  const parsed = goParseFloat(value);
  return parsed !== undefined && holds(key, parsed);
}

function compareStringKey(key: string, value: JsonValue, holds: Ordering): boolean {
  const durations = durationPair(key, value);
  if (durations) return holds(durationSeconds(durations[0]), durationSeconds(durations[1]));
  if (typeof value === 'string') {
    const keyQuantity = parseQuantity(key);
    const valueQuantity = keyQuantity && parseQuantity(value);
    if (keyQuantity && valueQuantity) return holds(compareQuantities(keyQuantity, valueQuantity), 0);
  }
  const floatKey = goParseFloat(key);
  if (floatKey !== undefined) return compareFloatKey(floatKey, value, holds);
  const versionKey = parseSemver(key);
  if (versionKey) {
    const versionValue = typeof value === 'string' ? parseSemver(value) : undefined;
    return versionValue !== undefined && holds(compareSemver(versionKey, versionValue), 0);
  }
  return false;
}
