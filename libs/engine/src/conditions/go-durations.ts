import { type JsonValue, parseDurationNanos } from '@edict/foundation';

/** Durations as Go `time.Duration` (int64 nanoseconds), held as bigint. */

const SECOND = 1_000_000_000n;
const INT64_MIN = -(1n << 63n);

/**
 * `time.Duration(f) * time.Second` for a JSON number: the float is truncated to whole seconds
 * (Go's float→int64 conversion), and the multiplication wraps like int64 arithmetic.
 */
export function secondsToDuration(seconds: number): bigint {
  const whole = Number.isFinite(seconds) && Math.abs(seconds) < 2 ** 63 ? BigInt(Math.trunc(seconds)) : INT64_MIN;
  return BigInt.asIntN(64, whole * SECOND);
}

/** `Duration.Seconds()`: the float Kyverno compares when mixing durations with other forms. */
export function durationSeconds(nanos: bigint): number {
  const whole = nanos / SECOND;
  return Number(whole) + Number(nanos - whole * SECOND) / 1e9;
}

/** A value as a duration for the Duration* operators: numbers are seconds, strings Go syntax. */
export function toDuration(value: JsonValue): bigint | undefined {
  if (typeof value === 'number') return secondsToDuration(value);
  if (typeof value === 'string') return parseDurationNanos(value);
  return undefined;
}

/**
 * Kyverno's rule for comparing a key and value "as durations" in Equals/NotEquals/numeric
 * operators: at least one side must be a duration string (the bare string "0" does not count),
 * and the other side must be a duration string too or a number of seconds.
 */
export function durationPair(key: JsonValue, value: JsonValue): [bigint, bigint] | undefined {
  const keyDuration = stringDuration(key);
  const valueDuration = stringDuration(value);
  if (keyDuration === undefined && valueDuration === undefined) return undefined;
  const k = keyDuration ?? (typeof key === 'number' ? secondsToDuration(key) : undefined);
  const v = valueDuration ?? (typeof value === 'number' ? secondsToDuration(value) : undefined);
  return k === undefined || v === undefined ? undefined : [k, v];
}

function stringDuration(value: JsonValue): bigint | undefined {
  return typeof value === 'string' && value !== '0' ? parseDurationNanos(value) : undefined;
}
