import { Environment } from '@marcbachmann/cel-js';
import type { SpecValue } from './spec-types';

interface CelDuration {
  readonly seconds: bigint;
  readonly nanos: number;
}

// cel-js's uint and duration classes, reached through values it makes (the package's `evaluator`
// export is not resolvable under the project's module resolution).
const probe = new Environment();
const UnsignedInt = (probe.evaluate('1u') as object).constructor as new (value: bigint) => { valueOf(): bigint };
const Duration = (probe.evaluate('duration("1s")') as object).constructor as new (
  seconds: bigint,
  nanos: number,
) => CelDuration;

/** A value the runner cannot express in cel-js (the test is then classified, not guessed). */
export class UnsupportedSpecValue extends Error {
  override readonly name = 'UnsupportedSpecValue';
}

const DURATION = 'type.googleapis.com/google.protobuf.Duration';
const TIMESTAMP = 'type.googleapis.com/google.protobuf.Timestamp';

/**
 * A conformance `Value` as Edict hands values to cel-js: int as bigint, uint as UnsignedInt,
 * string-keyed maps as null-prototype objects (as `toCel` builds them), other maps as `Map`,
 * timestamps as `Date`, durations as cel-js `Duration`.
 */
export function fromSpecValue(value: SpecValue): unknown {
  if ('nullValue' in value) return null;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.int64Value !== undefined) return BigInt(value.int64Value);
  if (value.uint64Value !== undefined) return new UnsignedInt(BigInt(value.uint64Value));
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.bytesValue !== undefined) return fromBase64(value.bytesValue);
  if (value.listValue) return (value.listValue.values ?? []).map(fromSpecValue);
  if (value.mapValue) {
    const entries = (value.mapValue.entries ?? []).map((e) => [fromSpecValue(e.key), fromSpecValue(e.value)] as const);
    if (entries.every(([key]) => typeof key === 'string')) {
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, item] of entries) out[key as string] = item;
      return out;
    }
    return new Map(entries);
  }
  if (value.objectValue) {
    const type = value.objectValue['@type'];
    if (type === DURATION) return parseDuration(String(value.objectValue.value));
    if (type === TIMESTAMP) return new Date(String(value.objectValue.value));
    throw new UnsupportedSpecValue(`protobuf message ${type}`);
  }
  throw new UnsupportedSpecValue(`value ${JSON.stringify(value)}`);
}

/** Whether cel-js's result equals the expected conformance value (NaN equals NaN here, as in the suite). */
export function sameAsSpec(actual: unknown, expected: SpecValue): boolean {
  if ('nullValue' in expected) return actual === null;
  if (expected.boolValue !== undefined) return actual === expected.boolValue;
  if (expected.int64Value !== undefined) return typeof actual === 'bigint' && actual === BigInt(expected.int64Value);
  if (expected.uint64Value !== undefined)
    return actual instanceof UnsignedInt && actual.valueOf() === BigInt(expected.uint64Value);
  if (expected.doubleValue !== undefined) {
    const want = Number(expected.doubleValue);
    return typeof actual === 'number' && (actual === want || (Number.isNaN(actual) && Number.isNaN(want)));
  }
  if (expected.stringValue !== undefined) return actual === expected.stringValue;
  if (expected.bytesValue !== undefined) {
    const want = fromBase64(expected.bytesValue);
    if (!(actual instanceof Uint8Array)) return false;
    return actual.length === want.length && want.every((byte, i) => actual[i] === byte);
  }
  if (expected.typeValue !== undefined) return typeName(actual) === expected.typeValue;
  if (expected.listValue) {
    const want = expected.listValue.values ?? [];
    const items = actual instanceof Set ? [...actual] : actual;
    return Array.isArray(items) && items.length === want.length && want.every((w, i) => sameAsSpec(items[i], w));
  }
  if (expected.mapValue) return sameMap(actual, expected.mapValue.entries ?? []);
  if (expected.objectValue) {
    const type = expected.objectValue['@type'];
    const text = String(expected.objectValue.value);
    if (type === DURATION)
      return actual instanceof Duration && durationNanos(actual) === durationNanos(parseDuration(text));
    if (type === TIMESTAMP) return actual instanceof Date && actual.getTime() === new Date(text).getTime();
    throw new UnsupportedSpecValue(`protobuf message ${type}`);
  }
  throw new UnsupportedSpecValue(`value ${JSON.stringify(expected)}`);
}

function sameMap(actual: unknown, entries: { key: SpecValue; value: SpecValue }[]): boolean {
  if (actual instanceof Map) {
    if (actual.size !== entries.length) return false;
    return entries.every((entry) => {
      const found = [...actual.entries()].find(([key]) => sameAsSpec(key, entry.key));
      return found !== undefined && sameAsSpec(found[1], entry.value);
    });
  }
  if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const record = actual as Record<string, unknown>;
  if (Object.keys(record).length !== entries.length) return false;
  return entries.every(
    (entry) =>
      entry.key.stringValue !== undefined &&
      Object.hasOwn(record, entry.key.stringValue) &&
      sameAsSpec(record[entry.key.stringValue], entry.value),
  );
}

/** The name of a CEL type value as cel-js returns it from `type(x)`. */
function typeName(actual: unknown): string | undefined {
  if (!actual || typeof actual !== 'object') return undefined;
  const name = (actual as { name?: unknown }).name;
  if (typeof name !== 'string' || !String(actual).startsWith('Type<')) return undefined;
  // cel-js names CEL's null_type 'null'.
  return name === 'null' ? 'null_type' : name;
}

/** A protobuf JSON duration ("1.5s", "-3600s"). */
export function parseDuration(text: string): CelDuration {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new UnsupportedSpecValue(`duration ${text}`);
  const sign = match[1] === '-' ? -1 : 1;
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  return new Duration(BigInt(sign) * BigInt(match[2]), sign * nanos);
}

function durationNanos(duration: CelDuration): bigint {
  return duration.seconds * 1_000_000_000n + BigInt(duration.nanos);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}
