/**
 * matchPolicy Equivalent: a rule naming another version (or, for a few moved kinds, another group)
 * of the requested resource matches too, and CEL then sees the request as that resource and kind.
 * kube asks its registry of served resources; without one, the versions a rule names are taken as
 * served versions of the same group and resource.
 */
import type { GroupVersionKind, GroupVersionResource, NamedRuleWithOperations } from '../types';

export interface EquivalentResource {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

/** The resources a server knows to be the same objects as `resource` (the request's own excluded or not). */
export type EquivalentResources = (
  resource: GroupVersionResource,
  kind: GroupVersionKind,
  subresource: string,
) => readonly EquivalentResource[];

/** Kinds kube serves under two groups, both ways (the legacy `extensions` group and its successors). */
const MOVED_GROUPS: Readonly<Record<string, readonly string[]>> = {
  'extensions/deployments': ['apps'],
  'extensions/daemonsets': ['apps'],
  'extensions/replicasets': ['apps'],
  'extensions/networkpolicies': ['networking.k8s.io'],
  'extensions/ingresses': ['networking.k8s.io'],
  'apps/deployments': ['extensions'],
  'apps/daemonsets': ['extensions'],
  'apps/replicasets': ['extensions'],
  'networking.k8s.io/networkpolicies': ['extensions'],
  'networking.k8s.io/ingresses': ['extensions'],
};

/**
 * Equivalents without a registry: every version the rules name for the request's group and
 * resource (and for the group it moved from or to), with the request's kind at that version.
 */
export function equivalentsFromRules(rules: readonly NamedRuleWithOperations[]): EquivalentResources {
  return (resource, kind) => {
    const groups = [resource.group, ...(MOVED_GROUPS[`${resource.group}/${resource.resource}`] ?? [])];
    const seen = new Set<string>();
    const out: EquivalentResource[] = [];
    for (const group of groups) {
      for (const rule of rules) {
        if (!(rule.apiGroups ?? []).some((g) => g === '*' || g === group)) continue;
        for (const version of rule.apiVersions ?? []) {
          if (version === '*') continue;
          const key = `${group}/${version}`;
          if (seen.has(key) || (group === resource.group && version === resource.version)) continue;
          seen.add(key);
          out.push({
            resource: { group, version, resource: resource.resource },
            kind: { group, version, kind: kind.kind },
          });
        }
      }
    }
    return out;
  };
}
