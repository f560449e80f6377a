import { compareCodePoints, goFloatV, goJson, type JsonValue } from '@edict/foundation';

/** Go `json.MarshalIndent(value, "", "  ")`: Go's JSON (sorted keys, HTML-safe strings), indented. */
export function goJsonIndent(value: JsonValue, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = indent + '  ';
    return `[\n${value.map((item) => inner + goJsonIndent(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort(compareCodePoints);
    if (keys.length === 0) return '{}';
    const inner = indent + '  ';
    const fields = keys.map((key) => `${inner}${goJson(key)}: ${goJsonIndent(value[key] as JsonValue, inner)}`);
    return `{\n${fields.join(',\n')}\n${indent}}`;
  }
  return goJson(value);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go `strconv.Quote` (what `%#v` prints for a string): printable runes as is, others escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const rune of text) {
    const escaped = ESCAPES[rune];
    if (escaped) out += escaped;
    else {
      const code = rune.codePointAt(0)!;
      if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if ((code >= 0x80 && code < 0xa0) || code === 0xad || (code >= 0xd800 && code <= 0xdfff))
        out += code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      else out += rune;
    }
  }
  return out + '"';
}

/** Go `fmt.Sprintf("%#v", v)` of a value decoded from JSON (float64, string, bool, nil, slices, maps). */
export function goSharpV(value: JsonValue): string {
  if (value === null) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goFloatV(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSharpV).join(', ')}}`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `map[string]interface {}{${keys.map((key) => `${goQuote(key)}:${goSharpV(value[key] as JsonValue)}`).join(', ')}}`;
}
