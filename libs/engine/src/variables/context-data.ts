import { copyGaining, isObject, setOwn, type JsonObject, type JsonValue } from '@edict/foundation';

/**
 * Copy-on-write merge of `source` into `target`, as Kyverno's context merges new data: objects merge
 * key by key (unless `overwriteObjects`), anything else replaces, `null` is stored (not deleted).
 * Only the objects along changed paths are copied, so earlier snapshots (checkpoints) stay valid
 * and a checkpoint costs nothing.
 */
export function mergeObjects(target: JsonObject, source: JsonObject, overwriteObjects: boolean): JsonObject {
  const keys = Object.keys(source);
  const out = copyGaining(target, keys);
  for (const key of keys) {
    const incoming = source[key] as JsonValue;
    const existing = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    if (!overwriteObjects && isObject(incoming) && isObject(existing))
      setOwn(out, key, mergeObjects(existing, incoming, false));
    else setOwn(out, key, incoming);
  }
  return out;
}

/** `['a', 'b'], v` → `{ a: { b: v } }`. */
export function nest(fields: readonly string[], value: JsonValue): JsonObject {
  let data: JsonValue = value;
  for (let i = fields.length - 1; i >= 0; i--) {
    const wrapper: JsonObject = {};
    setOwn(wrapper, fields[i] as string, data);
    data = wrapper;
  }
  return data as JsonObject;
}

/**
 * Splits a dotted variable name the way Kyverno does (a CSV record with `.` as separator), so
 * `request.operation` is two levels and `"a.b".c` keeps `a.b` as one key.
 */
export function splitVariableName(name: string): string[] {
  if (name === '') throw new Error('invalid variable name "": it is empty');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (name.charAt(i) === '"') {
      let field = '';
      let j = i + 1;
      for (;;) {
        if (j >= name.length)
          throw new Error(`invalid variable name "${name}": extraneous or missing " in quoted field`);
        if (name.charAt(j) === '"') {
          if (name.charAt(j + 1) === '"') {
            field += '"';
            j += 2;
            continue;
          }
          j++;
          break;
        }
        field += name.charAt(j);
        j++;
      }
      if (j < name.length && name.charAt(j) !== '.') {
        throw new Error(`invalid variable name "${name}": extraneous or missing " in quoted field`);
      }
      fields.push(field);
      if (j >= name.length) return fields;
      i = j + 1;
    } else {
      const dot = name.indexOf('.', i);
      const field = name.slice(i, dot < 0 ? name.length : dot);
      if (field.includes('"')) throw new Error(`invalid variable name "${name}": bare " in non-quoted field`);
      fields.push(field);
      if (dot < 0) return fields;
      i = dot + 1;
    }
    if (i === name.length) {
      fields.push('');
      return fields;
    }
  }
}
