import type { Environment } from '@marcbachmann/cel-js';
import { formatQuantity, parseDecimalQuantity, quantityToNumber, type Quantity } from '@edict/foundation';
import { celError } from './errors';
import { chargeString } from './runtime';

/** A resource quantity (Kubernetes' CEL `kubernetes.Quantity`). */
export class CelQuantity {
  constructor(readonly value: Quantity) {}
}

const TYPE = 'kubernetes.Quantity';
const NANOS = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;

/** Kubernetes' CEL quantity library: `quantity()`, `isQuantity()`, comparisons and arithmetic. */
export function registerQuantity(env: Environment): void {
  env.registerType(TYPE, CelQuantity);
  env.registerFunction(`quantity(string): ${TYPE}`, (text: string) => {
    chargeString(text.length);
    const parsed = parseDecimalQuantity(text);
    if (!parsed) throw celError(`quantities must match the regular expression: ${text}`);
    return new CelQuantity(parsed.quantity);
  });
  env.registerFunction('isQuantity(string): bool', (text: string) => parseDecimalQuantity(text) !== undefined);
  env.registerFunction(`${TYPE}.sign(): int`, (q: CelQuantity) => BigInt(Math.sign(Number(q.value.nanos))));
  env.registerFunction(`${TYPE}.isInteger(): bool`, (q: CelQuantity) => asInteger(q) !== undefined);
  env.registerFunction(`${TYPE}.asInteger(): int`, (q: CelQuantity) => {
    const whole = asInteger(q);
    if (whole === undefined) throw celError('cannot convert value to integer');
    return whole;
  });
  env.registerFunction(`${TYPE}.asApproximateFloat(): double`, (q: CelQuantity) => quantityToNumber(q.value));
  env.registerFunction(`${TYPE}.compareTo(${TYPE}): int`, (a: CelQuantity, b: CelQuantity) => BigInt(order(a, b)));
  env.registerFunction(`${TYPE}.isLessThan(${TYPE}): bool`, (a: CelQuantity, b: CelQuantity) => order(a, b) < 0);
  env.registerFunction(`${TYPE}.isGreaterThan(${TYPE}): bool`, (a: CelQuantity, b: CelQuantity) => order(a, b) > 0);
  env.registerFunction(`${TYPE}.add(${TYPE}): ${TYPE}`, (a: CelQuantity, b: CelQuantity) => sum(a, b.value.nanos));
  env.registerFunction(`${TYPE}.add(int): ${TYPE}`, (a: CelQuantity, b: bigint) => sum(a, b * NANOS));
  env.registerFunction(`${TYPE}.sub(${TYPE}): ${TYPE}`, (a: CelQuantity, b: CelQuantity) => sum(a, -b.value.nanos));
  env.registerFunction(`${TYPE}.sub(int): ${TYPE}`, (a: CelQuantity, b: bigint) => sum(a, -b * NANOS));
  env.registerFunction(`${TYPE}.mul(int): ${TYPE}`, (a: CelQuantity, b: bigint) => scaled(a, b));
  env.registerFunction(`string(${TYPE}): string`, (q: CelQuantity) => formatQuantity(q.value));
  // Quantities are equal by value (1 == 1000m), as Kubernetes' Quantity.Equal.
  env.registerOperator(`${TYPE} == ${TYPE}`, (a: CelQuantity, b: CelQuantity) => order(a, b) === 0);
}

function scaled(a: CelQuantity, by: bigint): CelQuantity {
  return new CelQuantity({ nanos: a.value.nanos * by, format: a.value.format });
}

function order(a: CelQuantity, b: CelQuantity): number {
  return a.value.nanos < b.value.nanos ? -1 : a.value.nanos > b.value.nanos ? 1 : 0;
}

function sum(a: CelQuantity, nanos: bigint): CelQuantity {
  return new CelQuantity({ nanos: a.value.nanos + nanos, format: a.value.format });
}

/** The whole value when it is an integer that fits in int64. */
function asInteger(q: CelQuantity): bigint | undefined {
  const nanos = q.value.nanos;
  if (nanos % NANOS !== 0n) return undefined;
  const whole = nanos / NANOS;
  return whole > MAX_INT64 || whole < -MAX_INT64 - 1n ? undefined : whole;
}
