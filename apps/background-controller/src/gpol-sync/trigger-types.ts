/**
 * The types whose objects can trigger a GeneratingPolicy: the served resources its
 * `matchConstraints.resourceRules` name (group, version and resource, `*` for any; subresources
 * name none), as Kyverno's policy controller lists triggers for a restore or generateExisting.
 * Matching itself (selectors, names, exclusions, conditions) is the generation's.
 */
import type { MatchResources } from '@edict/cel-policies';
import type { ServedType } from '@edict/kube';

export type TriggerType = Pick<ServedType, 'apiVersion' | 'kind' | 'namespaced'>;

export function triggerTypes(match: MatchResources, served: readonly ServedType[]): TriggerType[] {
  const types = new Map<string, TriggerType>();
  for (const rule of match.resourceRules ?? []) {
    for (const type of served) {
      if (!fits(rule.apiGroups, type.group) || !fits(rule.apiVersions, type.version)) continue;
      if (!rule.resources.some((resource) => resource === '*' || resource === type.resource)) continue;
      if (rule.scope === 'Cluster' && type.namespaced) continue;
      if (rule.scope === 'Namespaced' && !type.namespaced) continue;
      types.set(`${type.apiVersion}/${type.kind}`, {
        apiVersion: type.apiVersion,
        kind: type.kind,
        namespaced: type.namespaced,
      });
    }
  }
  return [...types.values()];
}

function fits(values: readonly string[] | undefined, value: string): boolean {
  return (values ?? []).some((item) => item === '*' || item === value);
}
