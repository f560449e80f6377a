import { setOwn, type JsonObject, type JsonValue } from '@edict/foundation';

/**
 * Path of a child inside the traversal, in Kyverno's format: `<parent>/<key>` with `/` in keys
 * written as `\/` (not RFC 6901), `<parent>/<index>` for arrays.
 */
export function childPath(parent: string, key: string | number): string {
  return typeof key === 'number'
    ? `${parent}/${key}`
    : `${parent}/${key.includes('/') ? key.split('/').join('\\/') : key}`;
}

/**
 * Rebuilds a JSON document bottom-up, copying only the containers whose content changed so an
 * untouched document comes back as the same reference. `leaf` maps strings (and other scalars);
 * `key` maps object keys and may rename them.
 */
export interface DocumentRewriter {
  leaf(value: JsonValue, path: string): JsonValue;
  key(key: string, parentPath: string): string;
  /** Containers returned by `leaf` are walked again when this says so (Kyverno re-traverses them). */
  descendInto?(value: JsonValue, path: string): JsonValue;
}

export function rewriteDocument(value: JsonValue, path: string, rewriter: DocumentRewriter): JsonValue {
  if (value === null || typeof value !== 'object') return rewriter.leaf(value, path);
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const next = rewriteDocument(item, childPath(path, i), rewriter);
      if (out === undefined && next !== item) out = value.slice(0, i);
      if (out !== undefined) out.push(next);
    }
    return out ?? value;
  }
  const keys = Object.keys(value);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const newKey = rewriter.key(key, path);
    const child = value[key] as JsonValue;
    const next = rewriteDocument(child, childPath(path, key), rewriter);
    if (out === undefined && (newKey !== key || next !== child)) {
      out = {};
      for (let k = 0; k < i; k++) setOwn(out, keys[k] as string, value[keys[k] as string] as JsonValue);
    }
    if (out !== undefined) setOwn(out, newKey, next);
  }
  return out ?? value;
}
