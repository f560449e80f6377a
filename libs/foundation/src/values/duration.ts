/**
 * Go `time.Duration` parsing and printing ("300ms", "1.5h", "2h45m", "-1m"), reproducing Go's
 * algorithm including its float64 handling of fractions and its int64 range checks.
 *
 * `parseDurationNanos` is exact (bigint nanoseconds). `parseDuration` returns a JS number of
 * nanoseconds for convenience; it is exact up to 2^53 ns (~104 days) and only loses sub-microsecond
 * precision beyond that, which is fine for comparisons Kyverno makes in (float64) seconds anyway.
 */

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // µ MICRO SIGN
  '\u03bcs': 1_000n, // μ GREEK SMALL LETTER MU
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const INT64_LIMIT = 1n << 63n; // |min int64|; max int64 is one less
const UINT_OVERFLOW_GUARD = INT64_LIMIT / 10n;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Exact nanoseconds, or `undefined` where Go's `time.ParseDuration` returns an error. */
export function parseDurationNanos(input: string): bigint | undefined {
  let s = input;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;

  let total = 0n;
  let pos = 0;
  while (pos < s.length) {
    if (!(s[pos] === '.' || isDigit(s[pos]))) return undefined;

    // Integer part: overflow is an error, as in Go's leadingInt.
    const intStart = pos;
    let whole = 0n;
    while (isDigit(s[pos])) {
      if (whole > UINT_OVERFLOW_GUARD) return undefined;
      whole = whole * 10n + BigInt(s.charCodeAt(pos) - 48);
      if (whole > INT64_LIMIT) return undefined;
      pos++;
    }
    const hasInt = pos > intStart;

    // Fraction: Go silently stops accumulating digits once they would overflow.
    let fraction = 0n;
    let scale = 1;
    let hasFraction = false;
    if (s[pos] === '.') {
      pos++;
      const fracStart = pos;
      let overflow = false;
      for (; isDigit(s[pos]); pos++) {
        if (overflow) continue;
        if (fraction > (INT64_LIMIT - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const next = fraction * 10n + BigInt(s.charCodeAt(pos) - 48);
        if (next > INT64_LIMIT) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      hasFraction = pos > fracStart;
    }
    if (!hasInt && !hasFraction) return undefined;

    const unitStart = pos;
    while (pos < s.length && !(s[pos] === '.' || isDigit(s[pos]))) pos++;
    if (pos === unitStart) return undefined; // missing unit
    const unit = UNIT_NANOS[s.slice(unitStart, pos)];
    if (unit === undefined) return undefined;

    if (whole > INT64_LIMIT / unit) return undefined;
    let value = whole * unit;
    if (fraction > 0n) {
      // Go computes the fractional part in float64 and truncates; do the same for identical results.
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > INT64_LIMIT) return undefined;
    }
    total += value;
    if (total > INT64_LIMIT) return undefined;
  }
  if (negative) return -total;
  if (total > INT64_LIMIT - 1n) return undefined;
  return total;
}

/** Nanoseconds as a number (see module note on precision), or `undefined` if invalid. */
export function parseDuration(s: string): number | undefined {
  const nanos = parseDurationNanos(s);
  return nanos === undefined ? undefined : Number(nanos);
}

/** Go's `Duration.String()`: "1h0m0s", "1m30s", "1.5s", "1.2ms", "1µs", "0s". */
export function formatDuration(nanos: number | bigint): string {
  let u = typeof nanos === 'bigint' ? nanos : BigInt(Math.trunc(nanos));
  if (u === 0n) return '0s';
  const negative = u < 0n;
  if (negative) u = -u;
  const sign = negative ? '-' : '';
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}\u00b5s`;
    return `${sign}${withFraction(u, 6)}ms`;
  }
  const totalSeconds = u / 1_000_000_000n;
  const secondsText = `${totalSeconds % 60n}${fractionDigits(u % 1_000_000_000n, 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes === 0n) return `${sign}${secondsText}`;
  const hours = totalMinutes / 60n;
  const minutesText = `${totalMinutes % 60n}m${secondsText}`;
  return hours === 0n ? `${sign}${minutesText}` : `${sign}${hours}h${minutesText}`;
}

/** `value / 10^precision` printed with trailing zeros (and a bare point) dropped. */
function withFraction(value: bigint, precision: number): string {
  const divisor = 10n ** BigInt(precision);
  return `${value / divisor}${fractionDigits(value % divisor, precision)}`;
}

function fractionDigits(remainder: bigint, precision: number): string {
  if (remainder === 0n) return '';
  return `.${remainder.toString().padStart(precision, '0').replace(/0+$/, '')}`;
}
