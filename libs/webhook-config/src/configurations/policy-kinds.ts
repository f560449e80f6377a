/**
 * Which kinds (as written in the policies) each webhook needs, and for which operations, following
 * Kyverno's webhook controller:
 * - the validating webhook takes validate, verifyImages (their checks), mutate-existing and generate
 *   rules; a filter without `operations` means all four operations;
 * - the mutating webhook takes standard mutate and verifyImages rules (CREATE and UPDATE by
 *   default), plus generate rules when the policy also has mutate or verifyImages rules;
 * - generate rules need all four operations on the kinds they match, and CREATE/UPDATE/DELETE on
 *   the kinds they generate or clone (to protect and synchronise the downstream);
 * - `exclude.any` entries that name only kinds and/or operations (no names, namespaces, selectors,
 *   annotations or user info) remove those operations from the matching kinds.
 * Autogen rules are already in the compiled policy, so Pod controllers come for free.
 */
import type { CachedPolicy } from '@edict/policy';
import { hasVerifyImages, type ResourceDescription, type Rule } from '@edict/engine';
import { ALL_OPERATIONS } from './rule-set';
import type { OperationType } from './types';

export type KindOperations = Map<string, Set<OperationType>>;

const CREATE_UPDATE: readonly OperationType[] = ['CREATE', 'UPDATE'];
const CREATE_UPDATE_DELETE: readonly OperationType[] = ['CREATE', 'UPDATE', 'DELETE'];
const KNOWN = new Set<string>(ALL_OPERATIONS);

export type WebhookFamily = 'validating' | 'mutating';

/** Whether the policy takes part in the family's webhook at all (its timeout counts then). */
export function policyTakesPart(policy: CachedPolicy, family: WebhookFamily): boolean {
  if (!policy.admission) return false;
  const types = policy.ruleTypes;
  if (family === 'mutating') return types.has('mutate') || types.has('verify-images');
  return (
    types.has('validate') ||
    types.has('generate') ||
    types.has('mutate') ||
    types.has('mutate-existing') ||
    types.has('verify-images')
  );
}

/** The kinds and operations the policy needs in the family's webhook. */
export function kindOperationsOf(policy: CachedPolicy, family: WebhookFamily): KindOperations {
  const out: KindOperations = new Map();
  for (const rule of policy.compiled.policy.spec.rules ?? []) {
    if (rule.generate) {
      merge(out, collect(rule, ALL_OPERATIONS));
      for (const kind of generatedKinds(rule)) add(out, kind, CREATE_UPDATE_DELETE);
      continue;
    }
    const verifyImages = hasVerifyImages(rule);
    const mutateExisting = !!rule.mutate && Array.isArray(rule.mutate.targets) && rule.mutate.targets.length > 0;
    if (family === 'validating') {
      if (rule.validate || verifyImages || mutateExisting) merge(out, collect(rule, ALL_OPERATIONS));
    } else if ((rule.mutate && !mutateExisting) || verifyImages || rule.validate?.manifests) {
      merge(out, collect(rule, CREATE_UPDATE));
    }
  }
  return out;
}

function generatedKinds(rule: Rule): string[] {
  const kinds: string[] = [];
  const generation = rule.generate!;
  for (const entry of [generation, ...(generation.foreach ?? [])]) {
    if (typeof entry.kind === 'string' && entry.kind !== '') kinds.push(entry.kind);
    else for (const kind of entry.cloneList?.kinds ?? []) if (typeof kind === 'string') kinds.push(kind);
  }
  return kinds;
}

/** The rule's match kinds with their operations (defaulted), minus what `exclude.any` removes. */
function collect(rule: Rule, defaults: readonly OperationType[]): KindOperations {
  const out: KindOperations = new Map();
  const match = rule.match ?? {};
  const descriptions: ResourceDescription[] = [];
  if (match.resources) descriptions.push(match.resources);
  for (const filter of [...(match.all ?? []), ...(match.any ?? [])])
    if (filter?.resources) descriptions.push(filter.resources);
  for (const description of descriptions) {
    const ops = operationsOf(description.operations);
    for (const kind of description.kinds ?? [])
      if (typeof kind === 'string') add(out, kind, ops.length ? ops : defaults);
  }
  for (const filter of rule.exclude?.any ?? []) {
    if (filter.roles?.length || filter.clusterRoles?.length || filter.subjects?.length) continue;
    const r = filter.resources ?? {};
    if (r.name || r.names?.length || r.namespaces?.length || r.annotations || r.selector || r.namespaceSelector)
      continue;
    const kinds = r.kinds?.length ? r.kinds : [...out.keys()];
    const ops = operationsOf(r.operations);
    for (const kind of kinds) {
      const current = out.get(kind);
      if (current) for (const op of ops.length ? ops : ALL_OPERATIONS) current.delete(op);
    }
  }
  return out;
}

function operationsOf(ops: readonly string[] | undefined): OperationType[] {
  return (ops ?? []).filter((op): op is OperationType => KNOWN.has(op));
}

function add(out: KindOperations, kind: string, ops: Iterable<OperationType>): void {
  let set = out.get(kind);
  if (!set) out.set(kind, (set = new Set()));
  for (const op of ops) set.add(op);
}

function merge(into: KindOperations, from: KindOperations): void {
  for (const [kind, ops] of from) add(into, kind, ops);
}
