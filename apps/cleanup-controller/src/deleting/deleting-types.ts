/**
 * The types a DeletingPolicy's matchConstraints name, as Kyverno turns its resource rules into kinds
 * to list: every served type whose group, version and resource a rule lists (`*` for any), in the
 * version the rule names (the served preferred one when it says `*`). Subresources are never listed.
 */
import type { MatchResources } from '@edict/cel-policies';
import type { CleanupCluster, ObjectType } from '../cluster/cleanup-cluster';

export async function deletingPolicyTypes(cluster: CleanupCluster, constraints: MatchResources): Promise<ObjectType[]> {
  const rules = constraints.resourceRules ?? [];
  if (rules.length === 0) return [];
  const served = await cluster.typesOf('*');
  const types = new Map<string, ObjectType>();
  for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    const resources = (rule.resources ?? []).filter((resource) => !resource.includes('/'));
    for (const type of served) {
      if (!listed(groups, type.group) || !listed(resources, type.resource)) continue;
      const chosen = versions.includes('*') ? [type.version] : versions;
      for (const version of chosen) {
        const apiVersion = type.group ? `${type.group}/${version}` : version;
        types.set(`${apiVersion}/${type.resource}`, { ...type, version, apiVersion });
      }
    }
  }
  return [...types.values()];
}

function listed(values: readonly string[], value: string): boolean {
  return values.includes('*') || values.includes(value);
}
