import type { Environment } from '@marcbachmann/cel-js';
import { systemClock, type Clock } from '@edict/foundation';
import { namespaceFunction } from '../libraries/namespace';

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';
/** Go's zero time (January 1, year 1, UTC) in Unix milliseconds: time.Truncate counts from it. */
const GO_ZERO_TIME_MS = -62_135_596_800_000n;

/**
 * Kyverno's time library: `time.now()`, `time.truncate(timestamp, duration)` (rounded down to a
 * multiple of the duration since Go's zero time; a duration <= 0 leaves it unchanged) and
 * `time.toCron(timestamp)` ("minute hour day month weekday", UTC).
 */
export function registerTime(env: Environment, clock: Clock = systemClock): void {
  namespaceFunction(env, `time.now(): ${TIMESTAMP}`, () => new Date(clock.now()));
  namespaceFunction(env, `time.truncate(${TIMESTAMP}, ${DURATION}): ${TIMESTAMP}`, truncate);
  namespaceFunction(env, `time.toCron(${TIMESTAMP}): string`, (at: Date) =>
    [at.getUTCMinutes(), at.getUTCHours(), at.getUTCDate(), at.getUTCMonth() + 1, at.getUTCDay()].join(' '),
  );
}

export function truncate(at: Date, duration: { readonly seconds: bigint; readonly nanos: number }): Date {
  const step = duration.seconds * 1_000_000_000n + BigInt(duration.nanos);
  if (step <= 0n) return at;
  const sinceZero = (BigInt(at.getTime()) - GO_ZERO_TIME_MS) * 1_000_000n;
  const truncated = sinceZero - (((sinceZero % step) + step) % step);
  return new Date(Number(truncated / 1_000_000n + GO_ZERO_TIME_MS));
}
