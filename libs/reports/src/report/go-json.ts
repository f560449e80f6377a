/**
 * JSON text as Go's encoding/json writes it for unstructured values (maps sorted by key, `<`, `>`,
 * `&`, U+2028 and U+2029 escaped, no spaces), so hashes over it agree with Kyverno's.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${goString(key)}:${goJson(item)}`).join(',')}}`;
  }
  return 'null';
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

function goString(text: string): string {
  return JSON.stringify(text).replace(HTML_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
