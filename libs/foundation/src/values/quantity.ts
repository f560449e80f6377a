/**
 * Kubernetes `resource.Quantity` ("500m", "1.5Gi", "1e3"), with the apimachinery parser's quirks.
 *
 * Values are held exactly as a bigint count of nano-units: Kubernetes itself rounds every parsed
 * quantity up (away from zero) to nano precision, so nanos are lossless and comparisons such as
 * "1.5Gi" vs "1536Mi" never see float drift. Only binary-suffixed quantities are capped at 2^63-1;
 * decimal ones keep arbitrary precision (two 600-digit numbers compare exactly, as in Go).
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value multiplied by 10^9 (exact). */
  readonly nanos: bigint;
  /** The notation family the source used; drives canonical formatting like Kubernetes. */
  readonly format: QuantityFormat;
}

const NANOS_PER_UNIT = 1_000_000_000n;
/** Kubernetes caps binary (Ki, Mi, ...) quantities at the largest int64 (in whole units). */
const MAX_NANOS = ((1n << 63n) - 1n) * NANOS_PER_UNIT;
/**
 * Decimal exponents beyond this are clamped to it ("1e999999" would otherwise build a
 * million-digit bigint on every comparison). Go keeps them exact; values this large never occur
 * in real resources, and everything up to 10^1000 stays exact here.
 */
const MAX_DECIMAL_SHIFT = 1_009;

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
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
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([suffix, exp]) => [exp, suffix]));
const BINARY_SUFFIX_BY_POWER = new Map(Object.entries(BINARY_SUFFIXES).map(([suffix, exp]) => [exp / 10, suffix]));

/** Characters apimachinery accepts as the start of a suffix. */
const SUFFIX_CHARS = new Set('eEinumkKMGTP');

interface QuantityParts {
  negative: boolean;
  integer: string; // leading zeros stripped, "0" when empty
  fraction: string;
  suffix: string;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Splits a quantity string the way apimachinery's scanner does. Note its leniency, kept on
 * purpose: a missing number reads as zero, so "-", ".", "k" and "Gi" all parse as 0.
 */
function splitQuantity(s: string): QuantityParts | undefined {
  let pos = 0;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    pos = 1;
  }
  while (s[pos] === '0') pos++;
  if (pos >= s.length) return { negative, integer: '0', fraction: '', suffix: '' };

  const intStart = pos;
  while (isDigit(s[pos])) pos++;
  const integer = s.slice(intStart, pos) || '0';

  let fraction = '';
  if (s[pos] === '.') {
    const fracStart = ++pos;
    while (isDigit(s[pos])) pos++;
    fraction = s.slice(fracStart, pos);
  }

  const suffixStart = pos;
  while (pos < s.length && SUFFIX_CHARS.has(s[pos]!)) pos++;
  if (pos < s.length && (s[pos] === '-' || s[pos] === '+')) pos++;
  while (isDigit(s[pos])) pos++;
  if (pos < s.length) return undefined;
  return { negative, integer, fraction, suffix: s.slice(suffixStart) };
}

interface SuffixMeaning {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  return undefined;
}

interface ScannedQuantity {
  parts: QuantityParts;
  meaning: SuffixMeaning;
}

function scanQuantity(s: string): ScannedQuantity | undefined {
  if (s.length === 0) return undefined;
  const parts = splitQuantity(s);
  if (!parts) return undefined;
  const meaning = interpretSuffix(parts.suffix);
  return meaning && { parts, meaning };
}

/** Parses a Kubernetes quantity; `undefined` when Kubernetes would reject the string. */
export function parseQuantity(s: string): Quantity | undefined {
  const scanned = scanQuantity(s);
  return scanned && toQuantity(scanned);
}

function toQuantity({ parts, meaning }: ScannedQuantity): Quantity {
  let magnitude = BigInt(parts.integer + parts.fraction);
  let format = meaning.format;
  if (magnitude !== 0n) magnitude = scaleToNanos(magnitude, parts.fraction.length, meaning);
  if (format === 'BinarySI' && magnitude > MAX_NANOS) magnitude = MAX_NANOS;
  // A binary quantity below one unit would only print confusingly; Kubernetes switches to decimal.
  if (format === 'BinarySI' && magnitude > 0n && magnitude < NANOS_PER_UNIT) format = 'DecimalSI';
  return { nanos: parts.negative ? -magnitude : magnitude, format };
}

/** digits × 10^-fractionDigits × base^exponent, in nanos, rounded up to a whole nano. */
function scaleToNanos(digits: bigint, fractionDigits: number, meaning: SuffixMeaning): bigint {
  let decimalShift = 9 - fractionDigits;
  if (meaning.base === 2) digits <<= BigInt(meaning.exponent);
  else decimalShift += meaning.exponent;
  if (decimalShift > MAX_DECIMAL_SHIFT) decimalShift = MAX_DECIMAL_SHIFT;
  if (decimalShift >= 0) return digits * 10n ** BigInt(decimalShift);
  // Dividing by more digits than there are leaves a positive fraction of a nano: rounds up to 1.
  if (-decimalShift > digits.toString().length) return 1n;
  const divisor = 10n ** BigInt(-decimalShift);
  const quotient = digits / divisor;
  return digits % divisor === 0n ? quotient : quotient + 1n;
}

/**
 * A quantity together with the decimal form apimachinery keeps internally
 * (value = unscaled × 10^-scale, as Go's `Quantity.AsDec()` sees it). That form, not the value
 * alone, decides float conversion and the precision of quantity division.
 */
export interface DecimalQuantity {
  readonly quantity: Quantity;
  readonly unscaled: bigint;
  /** Decimal places, never more than 9 (nano precision). */
  readonly scale: number;
}

/** Parses a Kubernetes quantity with its decimal form; `undefined` when Kubernetes would reject it. */
export function parseDecimalQuantity(s: string): DecimalQuantity | undefined {
  const scanned = scanQuantity(s);
  if (!scanned) return undefined;
  const { parts, meaning } = scanned;
  const digits = BigInt(parts.integer + parts.fraction);
  let unscaled = meaning.base === 2 ? digits << BigInt(meaning.exponent) : digits;
  let scale = meaning.base === 2 ? parts.fraction.length : parts.fraction.length - meaning.exponent;
  // apimachinery never keeps more than nano precision: round up (away from zero).
  if (scale > 9) {
    unscaled = roundUpDivide(unscaled, 10n ** BigInt(scale - 9));
    scale = 9;
  }
  return { quantity: toQuantity(scanned), unscaled: parts.negative ? -unscaled : unscaled, scale };
}

/** Go `Quantity.AsApproximateFloat64()`: unscaled × 10^-scale in float64 steps. */
export function approximateFloat64(q: DecimalQuantity): number {
  const base = Number(q.unscaled);
  return q.scale === 0 ? base : base * Number(`1e${-q.scale}`);
}

/** Divides exactly and rounds away from zero to a whole unit, as Quantity canonicalisation does. */
export function roundUpDivide(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  if (value % divisor === 0n) return quotient;
  return value < 0n !== divisor < 0n ? quotient - 1n : quotient + 1n;
}

/** Orders two quantities by value: negative, zero or positive like a comparator. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export function quantitiesEqual(a: Quantity, b: Quantity): boolean {
  return a.nanos === b.nanos;
}

/** Approximate value as a JS number (for display or float arithmetic only). */
export function quantityToNumber(q: Quantity): number {
  const whole = q.nanos / NANOS_PER_UNIT;
  return Number(whole) + Number(q.nanos - whole * NANOS_PER_UNIT) / 1e9;
}

/**
 * Canonical string as Kubernetes prints it: decimal values use the largest SI suffix (or `eN`
 * exponent) that keeps an integer mantissa; binary values use the largest power of 1024 that
 * divides them, falling back to decimal below 1024 or for fractions ("1.5Gi" → "1536Mi",
 * "0.5" → "500m", "1.5Ki" → "1536").
 */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const abs = q.nanos < 0n ? -q.nanos : q.nanos;
  const binaryFits = abs >= 1024n * NANOS_PER_UNIT && q.nanos % NANOS_PER_UNIT === 0n;
  if (q.format === 'BinarySI' && binaryFits) return formatBinary(q.nanos / NANOS_PER_UNIT);
  return formatDecimal(q.nanos, q.format === 'DecimalExponent');
}

function formatBinary(units: bigint): string {
  let power = 0;
  while (power < 6 && units % 1024n === 0n) {
    units /= 1024n;
    power++;
  }
  return `${units}${BINARY_SUFFIX_BY_POWER.get(power) ?? ''}`;
}

function formatDecimal(nanos: bigint, exponentNotation: boolean): string {
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  // Bring the exponent down to a multiple of three so an SI suffix exists for it.
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (exponentNotation) return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DECIMAL_SUFFIX_BY_EXPONENT.get(exponent) ?? `e${exponent}`}`;
}

/** Convenience: canonical form of a quantity string, or `undefined` if it is not one. */
export function canonicalQuantity(s: string): string | undefined {
  const q = parseQuantity(s);
  return q && formatQuantity(q);
}
