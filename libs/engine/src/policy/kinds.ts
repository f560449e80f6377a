/**
 * Reading the kind out of a `kinds` entry the way Kyverno does: entries may be `Kind`,
 * `version/Kind`, `group/version/Kind`, with an optional subresource (`Pod/exec`, `Pod.status`).
 */

const VERSION = /^(v\d+((alpha|beta)\d+)?|\*)$/;

/** Kubernetes writes subresources as `Kind/sub`; `Kind.sub` is accepted as well. */
function dottedSubresource(s: string): string {
  return s.replace('.', '/');
}

/** Kind (possibly with `/subresource`) of a kinds entry; empty when the entry has too many parts. */
export function kindOfEntry(entry: string): string {
  const parts = entry.split('/');
  switch (parts.length) {
    case 1:
      return dottedSubresource(entry);
    case 2:
      if (parts[0] === '*' && parts[1] === '*') return '*/*';
      if (VERSION.test(parts[0])) return dottedSubresource(parts[1]);
      return `${parts[0]}/${parts[1]}`;
    case 3:
      if (VERSION.test(parts[0])) return `${parts[1]}/${parts[2]}`;
      return dottedSubresource(parts[2]);
    case 4:
      return `${parts[2]}/${parts[3]}`;
    default:
      return '';
  }
}

function withoutSubresource(kind: string): string {
  const parts = kind.split('/');
  return parts.length === 2 ? parts[0] : kind;
}

/** True when some entry of `kinds` names `kind`, ignoring group, version and subresource. */
export function containsKind(kinds: readonly string[], kind: string): boolean {
  return kinds.some((entry) => withoutSubresource(kindOfEntry(entry)) === kind);
}
