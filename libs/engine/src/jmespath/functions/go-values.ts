import type { JsonValue } from '../../json';
import { isObject } from '../../json';

/**
 * Small reproductions of Go standard-library behaviour that Kyverno's functions inherit
 * (number printing, JSON encoding, byte-wise string order).
 */

/** Go `strconv.FormatFloat(f, 'f', -1, 32)`: shortest float32 digits, never exponent notation. */
export function formatFloat32(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  const f32 = Math.fround(value);
  if (!Number.isFinite(f32)) return f32 > 0 ? '+Inf' : '-Inf';
  if (f32 === 0) return Object.is(f32, -0) ? '-0' : '0';
  for (let precision = 1; precision <= 9; precision++) {
    const text = f32.toPrecision(precision);
    if (Math.fround(Number(text)) === f32) return toPlainDecimal(text);
  }
  return toPlainDecimal(f32.toPrecision(9));
}

/** Go `fmt.Sprintf("%v", float64)`: shortest repr, exponent form outside [1e-4, 1e21). */
export function formatFloatV(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const abs = Math.abs(value);
  if (abs === 0 || (abs >= 1e-4 && abs < 1e21)) return toPlainDecimal(String(value));
  // %v uses %g: exponent with at least two digits ("1e-05", "1e+21").
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
  return `${mantissa}e${sign}${digits}`;
}

/** Expands "1.5e+3" / "1e-7" into "1500" / "0.0000001". */
function toPlainDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, intPart, fracPart = '', exp = '0'] = match;
  const digits = (intPart ?? '') + fracPart;
  const point = (intPart ?? '').length + Number(exp);
  let body: string;
  if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) body = digits + '0'.repeat(point - digits.length);
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`;
  body = body.replace(/^0+(?=\d)/, '');
  if (body.includes('.')) body = body.replace(/\.?0+$/, '');
  return `${sign}${body}`;
}

/** Kyverno's `ifaceToString`: strings as is, numbers as float32 text, booleans as words. */
export function scalarToString(value: JsonValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatFloat32(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** Go's `strings.Compare` (UTF-8 byte order, which equals code point order). */
export function compareStrings(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const x = left[i]!.codePointAt(0)!;
    const y = right[i]!.codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
}

/** Go `encoding/json` output for a decoded value: sorted keys, HTML-safe escaping. */
export function goJsonStringify(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return escapeHtml(JSON.stringify(value));
  if (Array.isArray(value)) return `[${value.map(goJsonStringify).join(',')}]`;
  const keys = Object.keys(value).sort(compareStrings);
  return `{${keys.map((key) => `${escapeHtml(JSON.stringify(key))}:${goJsonStringify((value as Record<string, JsonValue>)[key]!)}`).join(',')}}`;
}

function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go `strconv.ParseFloat(s, 64)` acceptance (decimal, hex-float, inf/nan, underscores after prefix). */
export function parseGoFloat(text: string): number | undefined {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  return undefined;
}

export function isJsonObject(value: JsonValue): value is Record<string, JsonValue> {
  return isObject(value);
}
