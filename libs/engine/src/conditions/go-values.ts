import type { JsonValue } from '../json';
import { goFloatV } from '../pattern/go-text';

/**
 * How Kyverno's Go code turns JSON values into strings and numbers. Conditions hold decoded JSON,
 * where Go sees every number as float64; these helpers reproduce `fmt.Sprint` so string-based
 * operators see exactly the text Kyverno sees (`strconv.ParseFloat` is values/go-float).
 */

/** `fmt.Sprint(v)` for a decoded JSON value: floats as %g, nil as `<nil>`, maps sorted. */
export function goSprint(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFormatFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goSprint).join(' ')}]`;
  const keys = Object.keys(value).sort();
  return `map[${keys.map((k) => `${k}:${goSprint(value[k]!)}`).join(' ')}]`;
}

/** Go's `%v` for float64 ("1e+06", "+Inf"): the pattern package's formatter, shared. */
export const goFormatFloat = goFloatV;

export type StringListDecoding = { kind: 'list'; items: string[] } | { kind: 'notJson' } | { kind: 'wrongType' };

const decodedLists = new Map<string, StringListDecoding>();
const MAX_DECODED = 1_000;

/**
 * `json.Unmarshal(s, &[]string{})`, distinguishing text that is not JSON at all from JSON of the
 * wrong shape. Like Go, `null` decodes to an empty list and a `null` element to "". Cached because
 * the same ConfigMap-provided lists are decoded on every request.
 */
export function decodeStringList(s: string): StringListDecoding {
  let decoded = decodedLists.get(s);
  if (!decoded) {
    decoded = decodeUncached(s);
    if (decodedLists.size >= MAX_DECODED) decodedLists.clear();
    decodedLists.set(s, decoded);
  }
  return decoded;
}

function decodeUncached(s: string): StringListDecoding {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch {
    return { kind: 'notJson' };
  }
  if (parsed === null) return { kind: 'list', items: [] };
  if (!Array.isArray(parsed)) return { kind: 'wrongType' };
  const items: string[] = [];
  for (const item of parsed) {
    if (typeof item === 'string') items.push(item);
    else if (item === null) items.push('');
    else return { kind: 'wrongType' };
  }
  return { kind: 'list', items };
}
