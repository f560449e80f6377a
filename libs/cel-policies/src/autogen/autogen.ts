import type { JsonObject } from '@edict/foundation';
import type {
  AutogenConfig,
  AutogenTarget,
  MatchResources,
  NamedRuleWithOperations,
  ValidatingPolicySpec,
} from '../api/types';
import { POD_CONTROLLERS, type AutogenFamily } from './pod-controllers';
import { rewriteForFamily } from './rewrite';

/**
 * Kyverno's autogen for a ValidatingPolicy on Pods: one config per controller family (`cronjobs`,
 * `defaults`, in that order), each a copy of the spec matching the family's controllers with its
 * expressions rewritten to reach the pod template. Only a policy that matches Pods alone (with
 * `pods/ephemeralcontainers` at most), with no object selector, exclusions or resource names gets
 * any. `spec.autogen.podControllers.controllers` chooses the controllers (an empty list: none).
 */
export function autogenConfigs(spec: ValidatingPolicySpec): AutogenConfig[] {
  if (!canAutogen(spec.matchConstraints)) return [];
  const chosen = spec.autogen?.podControllers?.controllers ?? Object.keys(POD_CONTROLLERS);
  const families = new Map<AutogenFamily, AutogenTarget[]>();
  for (const name of new Set(chosen)) {
    const controller = POD_CONTROLLERS[name];
    if (!controller) continue;
    families.set(controller.family, [...(families.get(controller.family) ?? []), controller.target]);
  }
  const operations = spec.matchConstraints?.resourceRules?.[0]?.operations ?? [];
  return [...families.keys()].sort().map((family) => {
    const targets = [...(families.get(family) ?? [])].sort(compareTargets);
    const copy: ValidatingPolicySpec = { ...spec };
    const matchConstraints = controllerConstraints(spec.matchConstraints, targets, operations);
    if (matchConstraints) copy.matchConstraints = matchConstraints;
    else delete copy.matchConstraints;
    const rewritten = JSON.parse(rewriteForFamily(JSON.stringify(copy), family)) as ValidatingPolicySpec;
    return { name: family, targets, spec: rewritten };
  });
}

/** status.autogen as Kyverno writes it. */
export function autogenStatus(configs: readonly AutogenConfig[]): JsonObject {
  if (configs.length === 0) return {};
  const entries = configs.map((config) => [
    config.name,
    { targets: config.targets.map((target) => ({ ...target })), spec: config.spec as unknown as JsonObject },
  ]);
  return { configs: Object.fromEntries(entries) as JsonObject };
}

/** Whether Kyverno generates pod-controller configs for these match constraints (Pods alone, simple). */
export function canAutogen(match: MatchResources | undefined): boolean {
  if (!match) return false;
  const selector = match.objectSelector;
  if (selector && (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0))
    return false;
  if ((match.excludeResourceRules ?? []).length > 0) return false;
  if ((match.resourceRules ?? []).length !== 1) return false;
  const rule = match.resourceRules?.[0] as NamedRuleWithOperations;
  if ((rule.resourceNames ?? []).length > 0) return false;
  if (!sameList(rule.apiGroups, [''])) return false;
  if (!sameList(rule.apiVersions, ['v1'])) return false;
  const resources = rule.resources ?? [];
  if (resources.some((resource) => resource !== 'pods' && resource !== 'pods/ephemeralcontainers')) return false;
  return resources.includes('pods');
}

/** The controllers' resource rules, one per group/version (sorted), keeping the namespace selector. */
export function controllerConstraints(
  original: MatchResources | undefined,
  targets: readonly AutogenTarget[],
  operations: readonly string[],
): MatchResources | undefined {
  if (targets.length === 0 || operations.length === 0) return undefined;
  const byGroupVersion = new Map<string, { group: string; version: string; resources: Set<string> }>();
  for (const target of targets) {
    const key = `${target.group}/${target.version}`;
    const entry = byGroupVersion.get(key) ?? { group: target.group, version: target.version, resources: new Set() };
    entry.resources.add(target.resource);
    byGroupVersion.set(key, entry);
  }
  const rules = [...byGroupVersion.values()]
    .sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version))
    .map((entry): NamedRuleWithOperations => ({
      apiGroups: [entry.group],
      apiVersions: [entry.version],
      operations: [...operations],
      resources: [...entry.resources].sort(),
    }));
  const constraints: MatchResources = { resourceRules: rules };
  if (original?.namespaceSelector) constraints.namespaceSelector = original.namespaceSelector;
  return constraints;
}

export function compareTargets(a: AutogenTarget, b: AutogenTarget): number {
  return (
    compare(a.group, b.group) ||
    compare(a.version, b.version) ||
    compare(a.resource, b.resource) ||
    compare(a.kind, b.kind)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameList(list: readonly string[] | undefined, expected: readonly string[]): boolean {
  return (list ?? []).length === expected.length && expected.every((item, i) => list?.[i] === item);
}
