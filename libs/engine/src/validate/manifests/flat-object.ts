import { isObject, type JsonValue, goRegexpMatchLenient } from '@edict/foundation';

/**
 * k8s-manifest-sigstore compares objects as flat maps from dotted paths (`spec.ports.0.port`) to
 * leaf values. Nulls and empty maps or lists leave no entry.
 */
export type FlatObject = Map<string, Leaf>;

/** A JSON leaf; numbers are float64 on the Go side. */
export type Leaf = string | number | boolean;

/** Flattens `value`, leaving out every subtree whose path one of `mask` lists (see {@link isListed}). */
export function flatten(value: JsonValue, mask: readonly string[] = []): FlatObject {
  const rules = mask.map(normalizeKey);
  const flat: FlatObject = new Map();
  const visit = (node: JsonValue, path: string): void => {
    if (node === null) return;
    if (Array.isArray(node)) {
      node.forEach((child, index) => enter(child, path, String(index)));
    } else if (isObject(node)) {
      for (const [key, child] of Object.entries(node)) enter(child, path, key);
    } else {
      flat.set(path, node);
    }
  };
  const enter = (child: JsonValue, path: string, key: string): void => {
    const childPath = path === '' ? key : `${path}.${key}`;
    if (rules.length > 0 && rules.some((rule) => isListed(childPath, rule))) return;
    visit(child, childPath);
  };
  visit(value, '');
  return flat;
}

/**
 * The field-list test of k8s-manifest-sigstore: equal, `*` or empty, or, when the rule holds a `*`,
 * an unanchored regular expression with `*` read as `.*` (so `.` in a rule matches any character).
 */
export function isListed(path: string, rule: string): boolean {
  if (path === rule || rule === '*' || rule === '') return true;
  if (!rule.includes('*')) return false;
  return goRegexpMatchLenient(rule.replace(/\*/g, '.*'), path);
}

/** `a.b[2].c` → `a.b.2.c`; a double-quoted segment may hold dots (`metadata."x.y/z"`). */
export function normalizeKey(key: string): string {
  return splitKey(key).join('.');
}

function splitKey(key: string): string[] {
  const parts = key.includes('"') ? splitQuoted(key) : key.split('.');
  const keys: string[] = [];
  for (const part of parts) {
    const index = /\[(\d+)\]$/.exec(part);
    if (!index) {
      keys.push(part);
      continue;
    }
    const head = part.slice(0, index.index);
    if (head !== '') keys.push(head);
    keys.push(index[1]!);
  }
  return keys;
}

function splitQuoted(key: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of key) {
    if (char === '"') quoted = !quoted;
    else if (char === '.' && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}
