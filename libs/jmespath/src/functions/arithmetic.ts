import {
  type JsonValue,
  formatDuration,
  parseDurationNanos,
  approximateFloat64,
  formatQuantity,
  parseDecimalQuantity,
  roundUpDivide,
  type DecimalQuantity,
  type Quantity,
  goFloatV,
} from '@edict/foundation';
import { functionError, JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { any, arr, num } from './signatures';

/**
 * Kyverno's arithmetic over three kinds of operand: numbers (scalars), Kubernetes quantities and
 * Go durations, the latter two given as strings. Which combinations work, and the kind of the
 * result, follow Kyverno's tables:
 *   + -   Q±Q→Q   D±D→D   S±S→S                    (anything else: "Types mismatch")
 *   *     Q×S→Q   D×S→D   S×S→S   S×Q→Q   S×D→D
 *   /     Q/Q→S   Q/S→Q   D/D→S   D/S→D   S/S→S
 *   %     Q%Q→Q   D%D→D   S%S→S   (integers only)
 * A string that is both a quantity and a duration ("0", "1m") is read as a duration when the
 * other operand is unambiguously a duration, otherwise as a quantity.
 */

type Operand =
  | { readonly kind: 'scalar'; readonly value: number }
  | { readonly kind: 'quantity'; readonly value: DecimalQuantity }
  | { readonly kind: 'duration'; readonly value: bigint };

interface Candidate {
  readonly scalar?: number;
  readonly quantity?: DecimalQuantity;
  readonly duration?: bigint;
}

const NANOS_PER_SECOND = 1_000_000_000n;

function candidate(fn: string, value: JsonValue | undefined): Candidate {
  if (typeof value === 'number') return { scalar: value };
  if (typeof value === 'string') {
    const quantity = parseDecimalQuantity(value);
    const duration = parseDurationNanos(value);
    if (quantity || duration !== undefined) return { quantity, duration };
  }
  throw functionError(fn, 'invalid operand');
}

const durationOnly = (c: Candidate) => c.duration !== undefined && c.quantity === undefined;

function resolve(c: Candidate, durationContext: boolean): Operand {
  if (c.scalar !== undefined) return { kind: 'scalar', value: c.scalar };
  if (c.quantity && (c.duration === undefined || !durationContext)) return { kind: 'quantity', value: c.quantity };
  return { kind: 'duration', value: c.duration as bigint };
}

function operands(fn: string, args: JsonValue[]): [Operand, Operand] {
  const first = candidate(fn, args[0]);
  const second = candidate(fn, args[1]);
  const durationContext = durationOnly(first) || durationOnly(second);
  return [resolve(first, durationContext), resolve(second, durationContext)];
}

const mismatch = (fn: string) => functionError(fn, 'Types mismatch');
const zeroDivisor = (fn: string) => functionError(fn, 'Zero divisor passed');

/** Go `Duration.Seconds()`. */
function seconds(d: bigint): number {
  return Number(d / NANOS_PER_SECOND) + Number(d % NANOS_PER_SECOND) / 1e9;
}

/** Go `time.Duration(float64)`: truncation toward zero. */
function durationFromSeconds(s: number): string {
  return formatDuration(BigInt(Math.trunc(s * 1e9)));
}

/** Kyverno turns the scalar into a quantity via its `%v` text. */
/** Formats `nanos` in the notation family of `like` (Kyverno keeps the first operand's format). */
function formatNanos(nanos: bigint, like: Quantity): string {
  return formatQuantity({ nanos, format: like.format });
}

function scalarAsQuantity(value: number): DecimalQuantity {
  const parsed = parseDecimalQuantity(goFloatV(value));
  if (!parsed) {
    throw new JmesPathError(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  }
  return parsed;
}

function addOrSubtract(fn: string, args: JsonValue[], sign: 1n | -1n): JsonValue {
  const [a, b] = operands(fn, args);
  if (a.kind === 'quantity' && b.kind === 'quantity') {
    return formatNanos(a.value.quantity.nanos + sign * b.value.quantity.nanos, a.value.quantity);
  }
  if (a.kind === 'duration' && b.kind === 'duration') return formatDuration(a.value + sign * b.value);
  if (a.kind === 'scalar' && b.kind === 'scalar') return sign === 1n ? a.value + b.value : a.value - b.value;
  throw mismatch(fn);
}

function multiplyQuantity(q: DecimalQuantity, factor: number): string {
  const f = scalarAsQuantity(factor);
  return formatNanos(roundUpDivide(q.quantity.nanos * f.quantity.nanos, NANOS_PER_SECOND), q.quantity);
}

function multiply(args: JsonValue[]): JsonValue {
  const [a, b] = operands('multiply', args);
  if (a.kind === 'scalar') {
    if (b.kind === 'scalar') return a.value * b.value;
    if (b.kind === 'quantity') return multiplyQuantity(b.value, a.value);
    return durationFromSeconds(seconds(b.value) * a.value);
  }
  if (b.kind !== 'scalar') throw mismatch('multiply');
  if (a.kind === 'quantity') return multiplyQuantity(a.value, b.value);
  return durationFromSeconds(seconds(a.value) * b.value);
}

/** Quantity / scalar: exact decimal division truncated at the larger of the two decimal scales. */
function divideQuantity(q: DecimalQuantity, divisor: number): string {
  const d = scalarAsQuantity(divisor);
  const scale = Math.max(q.scale, d.scale);
  const shift = scale - q.scale + d.scale;
  const numerator = shift >= 0 ? q.unscaled * 10n ** BigInt(shift) : q.unscaled;
  const denominator = shift >= 0 ? d.unscaled : d.unscaled * 10n ** BigInt(-shift);
  const quotient = numerator / denominator; // BigInt division rounds toward zero, like inf.RoundDown
  const nanos = scale <= 9 ? quotient * 10n ** BigInt(9 - scale) : roundUpDivide(quotient, 10n ** BigInt(scale - 9));
  return formatNanos(nanos, q.quantity);
}

function divide(args: JsonValue[]): JsonValue {
  const [a, b] = operands('divide', args);
  if (a.kind === 'quantity') {
    if (b.kind === 'quantity') {
      const divisor = approximateFloat64(b.value);
      if (divisor === 0) throw zeroDivisor('divide');
      return approximateFloat64(a.value) / divisor;
    }
    if (b.kind === 'scalar') {
      if (b.value === 0) throw zeroDivisor('divide');
      return divideQuantity(a.value, b.value);
    }
  } else if (a.kind === 'duration') {
    if (b.kind === 'duration') {
      if (seconds(b.value) === 0) throw zeroDivisor('divide');
      return seconds(a.value) / seconds(b.value);
    }
    if (b.kind === 'scalar') {
      if (b.value === 0) throw zeroDivisor('divide');
      return durationFromSeconds(seconds(a.value) / b.value);
    }
  } else if (b.kind === 'scalar') {
    if (b.value === 0) throw zeroDivisor('divide');
    return a.value / b.value;
  }
  throw mismatch('divide');
}

/** Go's `int64(f)` plus Kyverno's check that nothing was lost. */
function wholeNumber(f: number): bigint | undefined {
  const truncated = Math.trunc(f);
  if (truncated !== f || !Number.isFinite(f)) return undefined;
  return BigInt(truncated);
}

function modulo(args: JsonValue[]): JsonValue {
  const [a, b] = operands('modulo', args);
  const nonInteger = () => functionError('modulo', 'Non-integer argument(s) passed for modulo');
  if (a.kind === 'quantity' && b.kind === 'quantity') {
    const x = wholeNumber(approximateFloat64(a.value));
    const y = wholeNumber(approximateFloat64(b.value));
    if (x === undefined || y === undefined) throw nonInteger();
    if (y === 0n) throw zeroDivisor('modulo');
    return formatNanos((x % y) * NANOS_PER_SECOND, a.value.quantity);
  }
  if (a.kind === 'duration' && b.kind === 'duration') {
    if (b.value === 0n) throw zeroDivisor('modulo');
    return formatDuration(a.value % b.value);
  }
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    const x = wholeNumber(a.value);
    const y = wholeNumber(b.value);
    if (x === undefined || y === undefined) throw nonInteger();
    if (y === 0n) throw zeroDivisor('modulo');
    return Number(x % y);
  }
  throw mismatch('modulo');
}

function sum(args: JsonValue[]): JsonValue {
  const items = args[0] as JsonValue[];
  if (items.length === 0) throw functionError('sum', 'at least one element in the array is required');
  // Like Kyverno, a single element is returned as is, without checking its kind.
  let total = items[0] as JsonValue;
  for (const item of items.slice(1)) total = addOrSubtract('sum', [total, item], 1n);
  return total;
}

/** Go `math.Round`: halves away from zero. */
function goRound(value: number): number {
  return value < 0 ? -Math.round(-value) : Math.round(value);
}

function round(args: JsonValue[]): JsonValue {
  const [value, digits] = args as [number, number];
  if (!Number.isInteger(digits)) throw functionError('round', 'Non-integer argument(s) passed for round off');
  // Kyverno's format string lacks its arguments here, so Go prints these placeholders.
  if (digits < 0) throw functionError('round', '%!d(MISSING) argument is out of bounds (%!d(MISSING))');
  const shift = 10 ** digits;
  return goRound(value * shift) / shift;
}

export const arithmeticFunctions: FunctionDefinition[] = [
  {
    name: 'add',
    returns: ['any'],
    note: 'does arithmetic addition of two specified values of numbers, quantities, and durations',
    signature: [any, any],
    fn: (a) => addOrSubtract('add', a, 1n),
  },
  {
    name: 'subtract',
    returns: ['any'],
    note: 'does arithmetic subtraction of two specified values of numbers, quantities, and durations',
    signature: [any, any],
    fn: (a) => addOrSubtract('subtract', a, -1n),
  },
  {
    name: 'multiply',
    returns: ['any'],
    note: 'does arithmetic multiplication of two specified values of numbers, quantities, and durations',
    signature: [any, any],
    fn: multiply,
  },
  { name: 'divide', returns: ['any'], note: 'divisor must be non zero', signature: [any, any], fn: divide },
  {
    name: 'modulo',
    returns: ['any'],
    note: 'divisor must be non-zero, arguments must be integers',
    signature: [any, any],
    fn: modulo,
  },
  {
    name: 'sum',
    returns: ['any'],
    note: 'does arithmetic addition of specified array of values of numbers, quantities, and durations',
    signature: [arr],
    fn: sum,
  },
  {
    name: 'round',
    returns: ['number'],
    note: 'does roundoff to upto the given decimal places',
    signature: [num, num],
    fn: round,
  },
];
