import { formatQuantity, parseQuantity, type Quantity } from '../../values/quantity';

/**
 * Quantity helpers beyond `values/quantity`: the decimal (unscaled, scale) form apimachinery
 * keeps internally, which decides float conversion and the precision of quantity division.
 */

export interface GoQuantity {
  readonly quantity: Quantity;
  /** value = unscaled × 10^-scale, as Go's `Quantity.AsDec()` sees it. */
  readonly unscaled: bigint;
  readonly scale: number;
}

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_POWERS: Readonly<Record<string, bigint>> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };

export function parseGoQuantity(text: string): GoQuantity | undefined {
  const quantity = parseQuantity(text);
  if (!quantity) return undefined;
  const match = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  const sign = match?.[1] === '-' ? -1n : 1n;
  const num = match?.[2] ?? '';
  const denom = match?.[3] ?? '';
  const suffix = match?.[4] ?? '';
  const digits = BigInt((num + denom).replace(/^0+(?=\d)/, '') || '0');
  let unscaled: bigint;
  let scale: number;
  const binary = BINARY_POWERS[suffix];
  if (binary !== undefined) {
    unscaled = digits << binary;
    scale = denom.length;
  } else {
    const exponent = DECIMAL_EXPONENTS[suffix] ?? Number(suffix.slice(1) || '0');
    unscaled = digits;
    scale = denom.length - exponent;
  }
  // Kyverno/apimachinery never keep more than nano precision: round up (away from zero).
  if (scale > 9) {
    const divisor = 10n ** BigInt(scale - 9);
    unscaled = unscaled % divisor === 0n ? unscaled / divisor : unscaled / divisor + 1n;
    scale = 9;
  }
  return { quantity, unscaled: sign * unscaled, scale };
}

/** Go `Quantity.AsApproximateFloat64()`: unscaled × 10^-scale in float64 steps. */
export function approximateFloat(q: GoQuantity): number {
  const base = Number(q.unscaled);
  return q.scale === 0 ? base : base * Number(`1e${-q.scale}`);
}

/** Formats `nanos` in the notation family of `like` (Kyverno keeps the first operand's format). */
export function formatNanos(nanos: bigint, like: Quantity): string {
  return formatQuantity({ nanos, format: like.format });
}

/** Divides exactly and rounds away from zero to a whole nano, as Quantity canonicalisation does. */
export function roundUpDivide(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  if (value % divisor === 0n) return quotient;
  return value < 0n !== divisor < 0n ? quotient - 1n : quotient + 1n;
}
