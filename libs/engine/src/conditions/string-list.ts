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
