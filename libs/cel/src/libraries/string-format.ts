import { celError } from './errors';
import {
  celTypeName,
  CelTypeClass,
  chargeList,
  chargeString,
  checkStringLength,
  isCelMap,
  isDuration,
  isUint,
  mapEntries,
  type CelDuration,
} from './runtime';

/** The largest `%.Nf` / `%.Ne` precision accepted. */
const MAX_PRECISION = 1000;

/**
 * `<string>.format(<list>)` as CEL's strings extension specifies it: `%s`, `%d`, `%f`, `%e` (with
 * a precision, `%.3f`), `%b`, `%o`, `%x`, `%X` and `%%`; arguments of any type in one list.
 * Doubles round half to even on their exact binary value, as Go's fmt does.
 */
export function formatString(pattern: string, args: readonly unknown[]): string {
  chargeString(pattern.length);
  chargeList(args.length);
  let out = '';
  let next = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char !== '%') {
      out += char;
      continue;
    }
    if (pattern[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    let precision: number | undefined;
    let j = i + 1;
    if (pattern[j] === '.') {
      let digits = '';
      while (/[0-9]/.test(pattern[++j] ?? '')) digits += pattern[j];
      if (digits === '')
        throw celError('could not parse formatting clause: unable to convert precision specifier to integer');
      precision = Number(digits);
      // Exact decimal expansion grows with the precision: bound it (cel-go's formats use a few digits).
      if (precision > MAX_PRECISION) {
        throw celError(`could not parse formatting clause: precision ${digits} exceeds ${MAX_PRECISION}`);
      }
    }
    const verb = pattern[j];
    if (verb === undefined) throw celError('could not parse formatting clause: missing formatting clause');
    if (!'sdfeboxX'.includes(verb)) {
      throw celError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
    if (next >= args.length) throw celError(`index ${next} out of range`);
    out += formatClause(verb, precision, args[next++]);
    checkStringLength(out.length);
    i = j;
  }
  return out;
}

function formatClause(verb: string, precision: number | undefined, arg: unknown): string {
  switch (verb) {
    case 's':
      return asString(arg);
    case 'd':
      return decimal(arg);
    case 'f':
      return floating(arg, precision ?? 6, 'f');
    case 'e':
      return floating(arg, precision ?? 6, 'e');
    case 'b':
      if (typeof arg === 'boolean') return arg ? '1' : '0';
      return integer(arg, 2, 'only integers and bools can be formatted as binary');
    case 'o':
      return integer(arg, 8, 'octal clause can only be used on integers');
    default: {
      const hex = hexadecimal(arg);
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
  }
}

function formattingError(message: string, arg: unknown): Error {
  return celError(`error during formatting: ${message}, was given ${celTypeName(arg)}`);
}

/** The `%s` form of a value; lists and maps recursively, map entries sorted by their formatted key. */
function asString(arg: unknown): string {
  switch (typeof arg) {
    case 'string':
      return arg;
    case 'boolean':
    case 'bigint':
      return String(arg);
    case 'number':
      return shortestDouble(arg);
  }
  if (arg === null || arg === undefined) return 'null';
  if (isUint(arg)) return String(arg.valueOf());
  if (arg instanceof Uint8Array) return new TextDecoder().decode(arg);
  if (arg instanceof Date) return timestampString(arg);
  if (isDuration(arg)) return durationString(arg);
  if (arg instanceof CelTypeClass) return arg.name;
  if (Array.isArray(arg)) {
    chargeList(arg.length);
    return `[${arg.map(asString).join(', ')}]`;
  }
  if (isCelMap(arg)) {
    const entries = mapEntries(arg).map(([key, value]) => [asString(key), asString(value)] as const);
    chargeList(entries.length);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, value]) => `${key}: ${value}`).join(', ')}}`;
  }
  throw formattingError(
    'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps',
    arg,
  );
}

function decimal(arg: unknown): string {
  if (typeof arg === 'bigint') return String(arg);
  if (isUint(arg)) return String(arg.valueOf());
  if (typeof arg === 'number') return shortestDouble(arg);
  throw formattingError('decimal clause can only be used on integers', arg);
}

function integer(arg: unknown, radix: number, message: string): string {
  if (typeof arg === 'bigint') return arg.toString(radix);
  if (isUint(arg)) return arg.valueOf().toString(radix);
  throw formattingError(message, arg);
}

function hexadecimal(arg: unknown): string {
  if (typeof arg === 'bigint') return arg.toString(16);
  if (isUint(arg)) return arg.valueOf().toString(16);
  const bytes = typeof arg === 'string' ? new TextEncoder().encode(arg) : arg instanceof Uint8Array ? arg : undefined;
  if (!bytes) throw formattingError('only integers, byte buffers, and strings can be formatted as hex', arg);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function floating(arg: unknown, precision: number, style: 'f' | 'e'): string {
  let value: number;
  if (typeof arg === 'number') value = arg;
  else if (typeof arg === 'bigint') value = Number(arg);
  else if (isUint(arg)) value = Number(arg.valueOf());
  else {
    const clause = style === 'f' ? 'fixed-point clause' : 'scientific clause';
    throw formattingError(`${clause} can only be used on doubles`, arg);
  }
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return style === 'f' ? toFixed(value, precision) : toExponential(value, precision);
}

/** Go's strconv.FormatFloat(x, 'f', -1, 64): the shortest digits that round-trip, never an exponent. */
function shortestDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, first, rest = '', exponentText] = match;
  const digits = first! + rest;
  const point = 1 + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A finite double exactly as a decimal: value = digits × 10^-scale. */
function exactDecimal(value: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exponent: number;
  if (exponentBits === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = exponentBits - 1075;
  }
  if (exponent >= 0) return { digits: mantissa << BigInt(exponent), scale: 0 };
  return { digits: mantissa * 5n ** BigInt(-exponent), scale: -exponent };
}

/** Rounds digits × 10^-scale to `keep` fewer-scaled digits, half to even. */
function roundHalfEven(digits: bigint, drop: number): bigint {
  if (drop <= 0) return digits * 10n ** BigInt(-drop);
  const unit = 10n ** BigInt(drop);
  const quotient = digits / unit;
  const remainder = digits % unit;
  const twice = remainder * 2n;
  if (twice > unit || (twice === unit && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

function signOf(value: number): string {
  return value < 0 || Object.is(value, -0) ? '-' : '';
}

function toFixed(value: number, precision: number): string {
  const { digits, scale } = exactDecimal(value);
  const rounded = roundHalfEven(digits, scale - precision)
    .toString()
    .padStart(precision + 1, '0');
  const whole = rounded.slice(0, rounded.length - precision);
  const fraction = rounded.slice(rounded.length - precision);
  return `${signOf(value)}${whole}${precision > 0 ? `.${fraction}` : ''}`;
}

function toExponential(value: number, precision: number): string {
  const { digits, scale } = exactDecimal(value);
  let mantissa: string;
  let exponent: number;
  if (digits === 0n) {
    mantissa = '0'.repeat(precision + 1);
    exponent = 0;
  } else {
    const length = digits.toString().length;
    exponent = length - 1 - scale;
    mantissa = roundHalfEven(digits, length - (precision + 1)).toString();
    if (mantissa.length > precision + 1) {
      // Rounding carried into a new digit (9.99 -> 10.0).
      mantissa = mantissa.slice(0, precision + 1);
      exponent++;
    }
  }
  const point = precision > 0 ? `${mantissa[0]}.${mantissa.slice(1)}` : mantissa[0];
  const exponentText = String(Math.abs(exponent)).padStart(2, '0');
  return `${signOf(value)}${point}e${exponent < 0 ? '-' : '+'}${exponentText}`;
}

/** RFC 3339 in UTC with the fraction only when there is one (Go's RFC3339Nano). */
function timestampString(date: Date): string {
  const iso = date.toISOString();
  return iso.replace(/\.(\d+)Z$/, (_all, fraction: string) => {
    const trimmed = fraction.replace(/0+$/, '');
    return trimmed ? `.${trimmed}Z` : 'Z';
  });
}

/** A duration as seconds with the shortest fraction (Go's `%vs` of Seconds()). */
function durationString(duration: CelDuration): string {
  const nanos = duration.seconds * 1_000_000_000n + BigInt(duration.nanos);
  return `${shortestDouble(Number(nanos) / 1e9)}s`;
}
