import { isObject, type JsonValue } from '@edict/foundation';

export type Segment = string | number;

/**
 * Visits every string of a document (values and object keys) with its path, as Kyverno's JSON
 * traversal does for variable checks. `skip` prunes subtrees (by path) that a check leaves out.
 */
export function walkStrings(
  value: JsonValue | undefined,
  visit: (text: string, path: readonly Segment[]) => void,
  skip: (path: readonly Segment[]) => boolean = () => false,
  path: Segment[] = [],
): void {
  if (value === undefined || skip(path)) return;
  if (typeof value === 'string') {
    visit(value, path);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkStrings(item, visit, skip, [...path, i]));
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = [...path, key];
    if (skip(child)) continue;
    visit(key, child);
    walkStrings(value[key], visit, skip, child);
  }
}

/** Kyverno's plain variable regex (`{{` … `}}` without inner braces), used for "has variables". */
const SIMPLE_VARIABLE = /\{\{[^{}]*\}\}/;

export function containsVariable(value: JsonValue | undefined): boolean {
  let found = false;
  walkStrings(value, (text) => {
    if (!found && SIMPLE_VARIABLE.test(text)) found = true;
  });
  return found;
}
