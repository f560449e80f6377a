/**
 * Go's `strconv.ParseFloat(s, 64)`, the one place Edict reads number text the way Kyverno does
 * (condition operators and pattern leaves both compare a string against a number through it).
 *
 * Go's accepted syntax, which JS `Number()` does not match:
 * - decimal `[+-]digits[.digits][e[+-]digits]`, with `.5` and `5.` allowed;
 * - hexadecimal `0x` mantissa that requires a binary exponent (`0x1p-2`, `0x1.8p1`; `0x10` is an error);
 * - `_` between digits (or right after the `0x` prefix), in decimal too: `1_000` is 1000;
 * - `inf`, `infinity` (optionally signed) and `nan` (unsigned), any case;
 * - no surrounding spaces, no `0b`/`0o` prefixes, no `Infinity` through the decimal path.
 * Overflow is ErrRange in Go (`1e400`), so it is `undefined` here like any other error;
 * underflow silently gives 0 (or -0), as in Go.
 */

const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;
const INFINITY = /^([+-]?)(?:inf|infinity)$/i;
const NAN = /^nan$/i;

/** Go's rule for `_` in number literals: only between digits, or between a base prefix and a digit. */
export function goUnderscoresAllowed(s: string): boolean {
  let i = s[0] === '+' || s[0] === '-' ? 1 : 0;
  let saw: 'start' | 'digit' | 'underscore' | 'other' = 'start';
  let hex = false;
  if (s.length - i >= 2 && s[i] === '0' && 'xXbBoO'.includes(s[i + 1]!)) {
    hex = s[i + 1] === 'x' || s[i + 1] === 'X';
    i += 2;
    saw = 'digit'; // the prefix counts as a digit, so `0x_1` is fine
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = 'digit';
    } else if (c === '_') {
      if (saw !== 'digit') return false;
      saw = 'underscore';
    } else {
      if (saw === 'underscore') return false;
      saw = 'other';
    }
  }
  return saw !== 'underscore';
}

/**
 * Go `strconv.ParseFloat(s, 64)`: the float64 Go returns, or `undefined` where Go returns an error
 * (syntax, or overflow to ±Inf). NaN comes back as NaN (it never compares equal, as in Go).
 */
export function goParseFloat(input: string): number | undefined {
  let s = input;
  if (s.includes('_')) {
    if (!goUnderscoresAllowed(s)) return undefined;
    s = s.replace(/_/g, '');
  }
  if (DECIMAL_FLOAT.test(s)) {
    const n = Number(s); // correctly rounded, like Go's decimal conversion
    return Number.isFinite(n) ? n : undefined;
  }
  const inf = INFINITY.exec(s);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (NAN.test(s)) return NaN;
  const hex = HEX_FLOAT.exec(s);
  if (hex) return parseHexFloat(hex[1] === '-', hex[2] ?? '', hex[3] ?? '', Number(hex[4]));
  return undefined;
}

function parseHexFloat(negative: boolean, whole: string, fraction: string, exponent: number): number | undefined {
  if (whole === '' && fraction === '') return undefined; // `0x.p1`: no digits
  const mantissa = BigInt(`0x${whole}${fraction}`);
  const n = scaleByPowerOfTwo(mantissa, exponent - 4 * fraction.length);
  if (!Number.isFinite(n)) return undefined;
  return negative ? -n : n;
}

const MANTISSA_BITS = 53;
const MIN_NORMAL_EXPONENT = -1022;
const MIN_SUBNORMAL_EXPONENT = -1074;

/**
 * `m · 2^e` rounded once to the nearest float64 (ties to even), as Go does for hex mantissas that
 * hold more bits than fit. Rounding the BigInt first and scaling after keeps the scaling exact,
 * which also gets subnormals right (no double rounding).
 */
function scaleByPowerOfTwo(m: bigint, e: number): number {
  if (m === 0n) return 0;
  const topExponent = m.toString(2).length - 1 + e;
  if (topExponent > 1023) return Infinity;
  if (topExponent < MIN_SUBNORMAL_EXPONENT - 1) return 0;
  const lowestBit = topExponent >= MIN_NORMAL_EXPONENT ? topExponent - (MANTISSA_BITS - 1) : MIN_SUBNORMAL_EXPONENT;
  let digits = m;
  let scale = e;
  if (scale < lowestBit) {
    const shift = BigInt(lowestBit - scale);
    const kept = digits >> shift;
    const rest = digits - (kept << shift);
    const half = 1n << (shift - 1n);
    digits = rest > half || (rest === half && (kept & 1n) === 1n) ? kept + 1n : kept;
    scale = lowestBit;
  }
  // digits has at most 54 bits here and 2^scale is a float64, so the product is exact or overflows.
  return Number(digits) * 2 ** scale;
}
