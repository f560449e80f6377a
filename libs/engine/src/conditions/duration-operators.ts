import type { JsonValue } from '@edict/foundation';
import { toDuration } from './go-durations';

/**
 * The deprecated Duration* operators: both sides must read as durations (Go syntax strings, or
 * numbers of whole seconds). Unlike Equals, the string "0" is accepted here.
 */
export function evaluateDurationOrdering(
  key: JsonValue,
  value: JsonValue,
  holds: (a: bigint, b: bigint) => boolean,
): boolean {
  const k = toDuration(key);
  if (k === undefined) return false;
  const v = toDuration(value);
  return v !== undefined && holds(k, v);
}
