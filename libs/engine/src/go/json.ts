import { goJsonNumber } from './floats';
import { sortGoOrder } from './strings';

/**
 * `json.Marshal` of a decoded value, the text Kyverno interpolates, hashes and prints: map keys in
 * Go's byte order, no spaces, and HTML-safe strings (`<`, `>`, `&`, U+2028 and U+2029 written as
 * `\u003c`...). Undefined fields are left out and undefined or non-finite values written as `null`,
 * so JavaScript objects read back from JSON give what Go gives. It runs on every admitted object
 * (the reports' resource hash), hence the loops and the plain-string path.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return goJsonString(value);
    case 'number':
      return Number.isFinite(value) ? goJsonNumber(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return Array.isArray(value) ? jsonArray(value) : jsonObject(value as Record<string, unknown>);
    default:
      return 'null';
  }
}

function jsonArray(items: readonly unknown[]): string {
  let text = '[';
  for (let index = 0; index < items.length; index++) text += (index === 0 ? '' : ',') + goJson(items[index]);
  return text + ']';
}

function jsonObject(object: Record<string, unknown>): string {
  let text = '{';
  let first = true;
  for (const key of sortGoOrder(Object.keys(object))) {
    const item = object[key];
    if (item === undefined) continue;
    text += (first ? '' : ',') + goJsonString(key) + ':' + goJson(item);
    first = false;
  }
  return text + '}';
}

/** Anything JSON or Go would escape (quotes, backslash, controls, HTML characters, lone surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be found
const NEEDS_ESCAPING = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/** A JSON string as Go writes it: JSON.stringify's escapes (Go's too since 1.22), plus the HTML-safe ones. */
function goJsonString(text: string): string {
  if (!NEEDS_ESCAPING.test(text)) return '"' + text + '"';
  return JSON.stringify(text).replace(HTML_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
