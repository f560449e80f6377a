import { isObject, type JsonValue } from '../json';

/**
 * Text of a value as Go's encoding/json writes it: Kyverno uses it when a non-string variable is
 * interpolated into a larger string. Map keys are sorted (by code point, i.e. UTF-8 byte order) and
 * `<`, `>`, `&`, U+2028, U+2029 are escaped as `\u003c`... like Go's HTML-safe encoder.
 */
export function goJson(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return goJsonString(value);
    case 'number':
      return goNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
  }
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `{${keys.map((key) => `${goJsonString(key)}:${goJson(value[key])}`).join(',')}}`;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function goJsonString(text: string): string {
  const quoted = JSON.stringify(text);
  return HTML_UNSAFE.test(quoted) ? quoted.replace(HTML_UNSAFE, (c) => HTML_ESCAPES[c] as string) : quoted;
}

/**
 * Go formats float64 in plain notation between 1e-6 and 1e21 and with a cleaned exponent otherwise,
 * which is exactly JavaScript's Number#toString; only negative zero differs.
 */
function goNumber(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

/** Orders strings by code point, as Go compares UTF-8 bytes (UTF-16 unit order differs for astral chars). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** Go's `%v` rendering of a decoded JSON value, for error messages that embed values. */
export function goValue(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(compareCodePoints);
    return `map[${keys.map((key) => `${key}:${goValue(value[key])}`).join(' ')}]`;
  }
  return String(value);
}
