/**
 * Which policies keep a version in force when their stored version turns invalid (stricter checks
 * after an upgrade, a CRD change, a write that bypassed the policy-validation webhook).
 *
 * Kyverno drops an invalid policy. Dropping fails open for a policy that decides admission, so the
 * store keeps the last valid version of a policy that:
 *  - may deny: a validate or verifyImages rule whose failure action can be Enforce (its own action or
 *    override, else the policy's `validationFailureAction` or an override of it);
 *  - or mutates at admission (mutate rules without `targets`): its mutations are defaults the cluster
 *    relies on (a securityContext, a label other policies select by), and the last valid version is
 *    what the operator had in force.
 * An Audit-only policy (reports only) or one that only generates or mutates existing resources is
 * dropped, as Kyverno does: nothing is admitted that it would have refused.
 *
 * When no valid version is known (the controller started with the policy already invalid, or it was
 * never valid), only what cannot write is kept: the stored version's validate rules that can Enforce,
 * as written (`enforcingValidateRules`). Their worst outcome is a denial, so this fails closed.
 */
import { hasVerifyImages, verifyImagesFailureAction, type Policy, type Rule } from '@edict/engine';
import type { CachedPolicy } from './types';

/** Whether the (valid, compiled) policy decides admission as above. */
export function holdsWhenInvalid(policy: CachedPolicy): boolean {
  if (!policy.admission) return false;
  if (policy.ruleTypes.has('mutate')) return true;
  const compiled = policy.compiled.policy;
  return compiled.spec.rules.some((rule) => (rule.validate || hasVerifyImages(rule)) && mayEnforce(compiled, rule));
}

/**
 * The stored (invalid) policy cut down to its validate rules that can Enforce, or undefined when it
 * has none or is too malformed to tell. Its resourceVersion is marked, so that an engine's compile
 * cache never takes it for the stored version itself.
 */
export function enforcingValidateRules(policy: Policy): Policy | undefined {
  try {
    const spec = policy.spec;
    if (!spec || typeof spec !== 'object' || !Array.isArray(spec.rules) || spec.admission === false) return undefined;
    const rules = spec.rules.filter(
      (rule): rule is Rule =>
        !!rule &&
        typeof rule === 'object' &&
        !!rule.validate &&
        typeof rule.validate === 'object' &&
        mayEnforce(policy, rule),
    );
    if (rules.length === 0) return undefined;
    const rv = policy.metadata?.resourceVersion;
    return {
      ...policy,
      metadata: {
        ...policy.metadata,
        ...(rv !== undefined ? { resourceVersion: `${rv}/enforcing-validate-rules` } : {}),
      },
      spec: { ...spec, rules: rules.map((rule) => withoutOtherBlocks(rule)) },
    } as Policy;
  } catch {
    return undefined;
  }
}

/** Whether Enforce can apply to the rule in some namespace. */
function mayEnforce(policy: Policy, rule: Rule): boolean {
  const own: unknown[] = [rule.validate?.failureAction, verifyImagesFailureAction(rule)];
  const ruleOverrides = actionsOf(rule.validate?.failureActionOverrides);
  if (own.some(isEnforce) || ruleOverrides.some(isEnforce)) return true;
  // The rule's own action, when it has one, decides everywhere its overrides do not.
  if (own.some((action) => action !== undefined && action !== null)) return false;
  return (
    isEnforce(policy.spec?.validationFailureAction) ||
    actionsOf(policy.spec?.validationFailureActionOverrides).some(isEnforce)
  );
}

function actionsOf(overrides: unknown): unknown[] {
  return Array.isArray(overrides)
    ? overrides.map((o) => (o && typeof o === 'object' ? (o as { action?: unknown }).action : undefined))
    : [];
}

function isEnforce(action: unknown): boolean {
  return typeof action === 'string' && action.toLowerCase() === 'enforce';
}

/** Only the rule's validate block acts: no mutate, generate or verifyImages from an unvalidated spec. */
function withoutOtherBlocks(rule: Rule): Rule {
  const { mutate: _mutate, generate: _generate, verifyImages: _verifyImages, ...rest } = rule;
  return rest as Rule;
}
