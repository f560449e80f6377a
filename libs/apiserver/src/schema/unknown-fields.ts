/**
 * Where a dropped field was, in the two spellings kube-apiserver uses: strict decoding's
 * (`spec.rules[0].validate.mesage`, in `unknown field "…"` errors and warnings) and server-side
 * apply's typed paths (`.spec.containers[name="web"].foo`, in "field not declared in schema").
 */
import { isObject, type JsonValue } from '@edict/foundation';

export interface FieldPath {
  /** `spec.rules[0]`: strict decoding's path. */
  readonly strict: string;
  /** `.spec.rules[0]`: server-side apply's path (list items by their keys when the list has any). */
  readonly typed: string;
}

export const ROOT: FieldPath = { strict: '', typed: '' };

export function child(path: FieldPath, name: string): FieldPath {
  return { strict: path.strict === '' ? name : `${path.strict}.${name}`, typed: `${path.typed}.${name}` };
}

/** A list item: by index, or by the values of its keys (a map list, or a merge key of a built-in). */
export function item(path: FieldPath, index: number, value: JsonValue, keys: readonly string[]): FieldPath {
  const keyed = keys.length > 0 && isObject(value) && keys.every((key) => value[key] !== undefined);
  const typed = keyed
    ? `[${keys.map((key) => `${key}=${JSON.stringify((value as Record<string, JsonValue>)[key])}`).join(',')}]`
    : `[${index}]`;
  return { strict: `${path.strict}[${index}]`, typed: `${path.typed}${typed}` };
}

/** What pruning gives: the object without unknown fields, and where each dropped field was. */
export interface Pruned<T extends JsonValue = JsonValue> {
  readonly value: T;
  readonly unknown: readonly FieldPath[];
}
