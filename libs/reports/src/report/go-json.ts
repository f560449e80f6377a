/**
 * JSON text as Go's encoding/json writes it for unstructured values (maps sorted by key, `<`, `>`,
 * `&`, U+2028 and U+2029 escaped, no spaces), so hashes over it agree with Kyverno's. It runs on
 * every admitted object (the report's resource hash), hence the loops and the plain-string path.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return goString(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return Array.isArray(value) ? goArray(value) : goObject(value as Record<string, unknown>);
    default:
      return 'null';
  }
}

function goArray(items: readonly unknown[]): string {
  let text = '[';
  for (let index = 0; index < items.length; index++) text += (index === 0 ? '' : ',') + goJson(items[index]);
  return text + ']';
}

function goObject(object: Record<string, unknown>): string {
  // Default sort order is UTF-16 code unit order, as `<` on strings.
  const keys = Object.keys(object).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    text += (first ? '' : ',') + goString(key) + ':' + goJson(item);
    first = false;
  }
  return text + '}';
}

/** Anything JSON or Go would escape (quotes, backslash, controls, HTML characters, lone surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be found
const NEEDS_ESCAPING = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

function goString(text: string): string {
  if (!NEEDS_ESCAPING.test(text)) return '"' + text + '"';
  return JSON.stringify(text).replace(HTML_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
