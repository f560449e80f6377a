/**
 * Go's text conventions that leak into Kyverno's pattern results: `%v` / `%T` in messages, number
 * to string conversions used for comparisons and `strings.TrimSpace` (`strconv.ParseFloat` is
 * `goParseFloat` in values/go-float).
 *
 * Numbers: Kubernetes decodes resource integers as int64 and everything else as float64, while
 * policy patterns are decoded by encoding/json, so their numbers are always float64. JSON in JS
 * has only one number type, so `NumberOrigin` says which side a number came from.
 */
import type { JsonValue } from '../json';

export type NumberOrigin = 'resource' | 'pattern';

const INT64_BOUND = 2 ** 63;

/** Whether a resource number would be an int64 in Kubernetes' unstructured form. */
export function isInt64(n: number): boolean {
  return Number.isInteger(n) && n < INT64_BOUND && n >= -INT64_BOUND;
}

function intText(n: number): string {
  // BigInt prints every digit where String() would switch to exponent notation (>= 1e21).
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** Shortest round-trip digits and decimal exponent: 1234.5 → { mantissa: "1.2345", exponent: 3 }. */
function shortestExponential(n: number): { mantissa: string; exponent: number } {
  const text = Math.abs(n).toExponential();
  const e = text.indexOf('e');
  return { mantissa: text.slice(0, e), exponent: Number(text.slice(e + 1)) };
}

function goExponent(exponent: number): string {
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${exponent < 0 ? '-' : '+'}${digits}`;
}

function specialFloat(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  return undefined;
}

/** Go `%v` of a float64: shortest digits, in exponent form when the decimal exponent is < -4 or >= 6. */
export function goFloatV(n: number): string {
  const special = specialFloat(n);
  if (special !== undefined) return special;
  const { mantissa, exponent } = shortestExponential(n);
  const sign = n < 0 ? '-' : '';
  if (exponent < -4 || exponent >= 6) return `${sign}${mantissa}e${goExponent(exponent)}`;
  return String(n); // JS prints these magnitudes in plain notation with the same shortest digits
}

/** Go `strconv.FormatFloat(n, 'E', -1, 64)`: "5E+00", "1.25E-01". */
export function goFloatE(n: number): string {
  const special = specialFloat(n);
  if (special !== undefined) return special === '0' ? '0E+00' : special === '-0' ? '-0E+00' : special;
  const { mantissa, exponent } = shortestExponential(n);
  return `${n < 0 ? '-' : ''}${mantissa}E${goExponent(exponent)}`;
}

/** Go `fmt.Sprintf("%f", n)`: six decimals. */
export function goFloatF(n: number): string {
  if (Math.abs(n) >= 1e21) return `${BigInt(n).toString()}.000000`;
  return n.toFixed(6);
}

/** How Kyverno turns a resource value into text before parsing it as a duration or quantity. */
export function numberText(value: JsonValue | undefined): string | undefined {
  if (value === null || value === undefined) return '0';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInt64(value) ? intText(value) : goFloatF(value);
  return undefined;
}

/** How Kyverno stringifies a resource value for wildcard comparison; `undefined` when it refuses. */
export function comparableText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInt64(value) ? intText(value) : goFloatE(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** Go `%v` of a decoded JSON value (maps print with sorted keys, like fmt does). */
export function goValueText(value: JsonValue | undefined, origin: NumberOrigin): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return origin === 'resource' && isInt64(value) ? intText(value) : goFloatV(value);
  if (Array.isArray(value)) return `[${value.map((item) => goValueText(item, origin)).join(' ')}]`;
  const keys = Object.keys(value).sort();
  return `map[${keys.map((key) => `${key}:${goValueText(value[key], origin)}`).join(' ')}]`;
}

/** Go `%T` of a decoded JSON value. */
export function goTypeName(value: JsonValue | undefined, origin: NumberOrigin): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return origin === 'resource' && isInt64(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

/** Characters Go's `unicode.IsSpace` accepts (JS `trim` differs on U+0085 and U+FEFF). */
function isGoSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Go `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Go `strings.Trim(s, " ")`: only the ASCII space. */
export function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) === 0x20) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}
