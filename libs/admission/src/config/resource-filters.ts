import { wildcardMatch, parseKind, type GroupVersionKind } from '@edict/foundation';
import type { ResourceFilterEntry } from './types';

const BRACKETS = /\[([^[\]]*)\]/g;

/**
 * Parses `resourceFilters` exactly as Kyverno does: every `[...]` group, split on commas without
 * trimming; `[Kind]` and `[Kind,Namespace]` leave the missing parts empty, which only match empty
 * values. Groups with more than three parts are reported (Kyverno silently repeats the previous
 * filter for them) and skipped.
 */
export function parseResourceFilters(text: string): { filters: ResourceFilterEntry[]; problems: string[] } {
  const filters: ResourceFilterEntry[] = [];
  const problems: string[] = [];
  for (const match of text.matchAll(BRACKETS)) {
    const parts = (match[1] as string).split(',');
    if (parts.length > 3) {
      problems.push(`[${match[1]}] has ${parts.length} parts, expected [Kind,Namespace,Name]`);
      continue;
    }
    const [kind = '', namespace = '', name = ''] = parts;
    filters.push(filterEntry(kind, namespace, name));
  }
  return { filters, problems };
}

function filterEntry(kind: string, namespace: string, name: string): ResourceFilterEntry {
  if (kind === '') return { group: '', version: '', kind: '', subresource: '', namespace: '', name: '' };
  const selector = parseKind(kind);
  return { ...selector, subresource: selector.subresource ?? '', namespace, name };
}

/**
 * Kyverno's ToFilter: group, version, kind and subresource must match, then namespace and name; a
 * core v1 Namespace is also filtered when its own name matches the filter's namespace pattern
 * (so `[*,kube-system,*]` covers the kube-system Namespace object itself).
 */
export function matchesResourceFilters(
  filters: readonly ResourceFilterEntry[],
  gvk: GroupVersionKind,
  subresource: string,
  namespace: string,
  name: string,
): boolean {
  for (const f of filters) {
    if (
      !wildcardMatch(f.group, gvk.group) ||
      !wildcardMatch(f.version, gvk.version) ||
      !wildcardMatch(f.kind, gvk.kind) ||
      !wildcardMatch(f.subresource, subresource)
    )
      continue;
    if (wildcardMatch(f.namespace, namespace) && wildcardMatch(f.name, name)) return true;
    const isNamespace = gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Namespace';
    if (isNamespace && wildcardMatch(f.namespace, name)) return true;
  }
  return false;
}
