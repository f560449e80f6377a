/**
 * Which rules of a policy its lifecycle acts on, as Kyverno's policy controller picks them:
 *  - on creation or update, generate rules with `generateExisting` and mutate-existing rules with
 *    `mutateExistingOnPolicyUpdate` run for the existing resources they match (the rule's field
 *    wins over the deprecated policy-level one);
 *  - on update, synchronized data rules are applied again to the triggers of their downstream
 *    objects, so a changed rule reaches what it generated;
 *  - on deletion of the policy or of a rule, the downstream objects of synchronized data rules
 *    are deleted unless `orphanDownstreamOnPolicyDelete` is set; clones and unsynchronized
 *    objects stay;
 *  - on update, a kept rule whose target changed (kind, name, namespace, clone source) lets go
 *    of what it generated before: those objects lose their policy and rule labels and stay.
 */
import type { CompiledPolicy, Generation, Rule } from '@edict/engine';

/** One type of object a generate rule writes. */
export interface TargetType {
  readonly apiVersion: string;
  readonly kind: string;
}

export function generateExistingRules(compiled: CompiledPolicy): Rule[] {
  const fallback = compiled.policy.spec.generateExisting === true;
  return compiled.generateRules.filter((rule) => rule.generate?.generateExisting ?? fallback);
}

export function mutateExistingOnUpdateRules(compiled: CompiledPolicy): Rule[] {
  const fallback = compiled.policy.spec.mutateExistingOnPolicyUpdate === true;
  return compiled.mutateRules.filter(
    (rule) => rule.mutate?.targets && (rule.mutate.mutateExistingOnPolicyUpdate ?? fallback),
  );
}

/** Synchronized data rules (data in the rule or in a foreach entry). */
export function synchronizedDataRules(compiled: CompiledPolicy): Rule[] {
  return compiled.generateRules.filter((rule) => rule.generate?.synchronize === true && dataTargets(rule).length > 0);
}

/** Generate rules of `previous` that `current` no longer has (by name). */
export function removedRules(previous: CompiledPolicy, current: CompiledPolicy): Rule[] {
  const kept = new Set(current.generateRules.map((rule) => rule.name));
  return previous.generateRules.filter((rule) => !kept.has(rule.name));
}

/** Rules kept by name whose target changed, with the types of what they generated before. */
export function retargetedRules(
  previous: CompiledPolicy,
  current: CompiledPolicy,
): Array<{ readonly rule: string; readonly types: TargetType[] }> {
  const out: Array<{ rule: string; types: TargetType[] }> = [];
  for (const before of previous.generateRules) {
    const after = current.generateRules.find((rule) => rule.name === before.name)?.generate;
    if (!after || !before.generate) continue;
    const types = [
      ...(sameTarget(before.generate, after) ? [] : targetTypes([before.generate])),
      ...(same(before.generate.cloneList, after.cloneList) ? [] : cloneListTypes(before.generate)),
    ];
    for (const entry of before.generate.foreach ?? []) {
      const match = after.foreach?.find((candidate) => candidate.list === entry.list);
      if (match && !sameTarget(entry, match)) types.push(...targetTypes([entry]));
    }
    if (types.length > 0) out.push({ rule: before.name, types: unique(types) });
  }
  return out;
}

/** What a rule's downstream cleanup deletes: the data targets of a synchronized rule, unless it orphans them. */
export function cleanupTypes(rule: Rule): TargetType[] {
  const generate = rule.generate;
  if (!generate?.synchronize || generate.orphanDownstreamOnPolicyDelete) return [];
  return dataTargets(rule);
}

/** The types a rule's data (rule-level or foreach) generates. */
export function dataTargets(rule: Rule): TargetType[] {
  const generate = rule.generate;
  if (!generate) return [];
  const withData = [generate, ...(generate.foreach ?? [])].filter((entry) => entry.data !== undefined);
  return unique(targetTypes(withData));
}

type TargetFields = Pick<Generation, 'apiVersion' | 'kind' | 'name' | 'namespace' | 'uid' | 'clone' | 'data'>;

function sameTarget(a: TargetFields, b: TargetFields): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.namespace === b.namespace &&
    a.uid === b.uid &&
    same(a.clone, b.clone)
  );
}

/** Literal target types; a kind or apiVersion that is a variable names no type to look in. */
function targetTypes(entries: readonly TargetFields[]): TargetType[] {
  const out: TargetType[] = [];
  for (const entry of entries) {
    const data = entry.data as { apiVersion?: unknown; kind?: unknown } | undefined;
    const kind = entry.kind ?? (typeof data?.kind === 'string' ? data.kind : undefined);
    const apiVersion = entry.apiVersion ?? (typeof data?.apiVersion === 'string' ? data.apiVersion : 'v1');
    if (kind && literal(kind) && literal(apiVersion)) out.push({ apiVersion, kind });
  }
  return out;
}

function cloneListTypes(generate: Generation): TargetType[] {
  return (generate.cloneList?.kinds ?? []).flatMap((selector) => {
    const slash = selector.lastIndexOf('/');
    const type =
      slash < 0
        ? { apiVersion: 'v1', kind: selector }
        : { apiVersion: selector.slice(0, slash), kind: selector.slice(slash + 1) };
    return literal(type.kind) && literal(type.apiVersion) ? [type] : [];
  });
}

function literal(value: string): boolean {
  return !value.includes('{{') && !value.includes('*');
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function unique(types: readonly TargetType[]): TargetType[] {
  const seen = new Map(types.map((type) => [`${type.apiVersion}/${type.kind}`, type]));
  return [...seen.values()];
}
