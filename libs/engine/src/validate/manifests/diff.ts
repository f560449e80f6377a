import { compileGoRegexp, goRegexpMatch, compareCodePoints, goJson, goTypeName, goValueText } from '@edict/foundation';
import { flatten, isListed, type FlatObject, type Leaf } from './flat-object';

/** One difference between the signed manifest (`before`) and the live object (`after`). */
export interface Difference {
  key: string;
  before: Leaf | null;
  after: Leaf | null;
}

/**
 * The differences between two objects, by flattened path and sorted by path, as k8s-manifest-sigstore's
 * mapnode diff reports them: created, updated and deleted leaves, type changes as text, and without the
 * index-only changes of list entries that merely moved.
 */
export function diffObjects(before: FlatObject, after: FlatObject): Difference[] {
  const changes: Difference[] = [];
  const typeChanges: Difference[] = [];
  for (const [key, value] of before) {
    const other = after.get(key);
    if (other === undefined) changes.push({ key, before: value, after: null });
    else if (typeof other !== typeof value) {
      typeChanges.push({ key, before: goTypedString(value), after: goTypedString(other) });
    } else if (other !== value) changes.push({ key, before: value, after: other });
  }
  for (const [key, value] of after) {
    if (!before.has(key)) changes.push({ key, before: null, after: value });
  }
  const items = [...withoutMovedListEntries(changes), ...typeChanges];
  return items.sort((a, b) => compareCodePoints(a.key, b.key));
}

/** Convenience for whole objects. */
export function diffValues(before: Parameters<typeof flatten>[0], after: Parameters<typeof flatten>[0]): Difference[] {
  return diffObjects(flatten(before), flatten(after));
}

/**
 * A value deleted at one list index and created at another (same path otherwise) is a move, not a
 * change. The path pattern is an unanchored regular expression, as upstream builds it.
 */
function withoutMovedListEntries(items: Difference[]): Difference[] {
  const indexSegment = /\.\d+\./;
  return items.filter((item) => {
    if (!indexSegment.test(item.key) || (item.before !== null && item.after !== null)) return true;
    const search = item.key.replace(/\.\d+\./g, '\\.\\d+\\.');
    try {
      compileGoRegexp(search);
    } catch {
      return true;
    }
    return !items.some((other) => {
      if (!goRegexpMatch(search, other.key)) return false;
      const movedAway = item.before === other.after && other.before === null && item.after === null;
      const movedHere = item.after === other.before && other.after === null && item.before === null;
      return movedAway || movedHere;
    });
  });
}

/** Drops the differences whose path one of the ignored fields covers (each field also covers its subpaths). */
export function filterIgnored(items: Difference[], ignoreFields: readonly string[]): Difference[] {
  if (ignoreFields.length === 0) return items;
  const rules = ignoreFields.map((field) => `${field}*`);
  return items.filter((item) => !rules.some((rule) => isListed(item.key, rule)));
}

/** Image references the API server canonicalises (`nginx` → `docker.io/nginx`, `ubuntu` → `ubuntu:latest`) are not changes. */
export function withoutCanonicalizedImages(items: Difference[]): Difference[] {
  return items.filter((item) => {
    if (!item.key.endsWith('image')) return true;
    if (typeof item.before !== 'string' || typeof item.after !== 'string') return true;
    return !(`docker.io/${item.before}` === item.after || `${item.before}:latest` === item.after);
  });
}

/** The JSON form Kyverno prints after "diff found; ". */
export function formatDiff(items: Difference[]): string {
  return goJson({
    items: items.map((item) => ({ key: item.key, values: { after: item.after, before: item.before } })),
  });
}

/** k8s-manifest-sigstore's `fmt.Sprintf("(type: %T) %s", v, v)`: `%s` of a non-string prints Go's `%!s(T=v)`. */
export function goTypedString(value: Leaf): string {
  const type = goTypeName(value);
  const text = typeof value === 'string' ? value : `%!s(${type}=${goValueText(value)})`;
  return `(type: ${type}) ${text}`;
}
