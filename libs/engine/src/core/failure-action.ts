import { checkSelector, wildcardMatch } from '@edict/foundation';
import type { FailureActionOverride, Policy, Rule, ValidationFailureAction } from '../policy/types';
import { verifyImagesFailureAction } from '../verify-images/verify-rule';

export type FailureAction = 'Enforce' | 'Audit';

/** Where the resource lives: overrides pick namespaces by name and by labels. */
export interface NamespaceScope {
  namespace?: string;
  namespaceLabels?: Record<string, string>;
}

function normalize(action: ValidationFailureAction | undefined): FailureAction | undefined {
  if (!action) return undefined;
  return action.toLowerCase() === 'enforce' ? 'Enforce' : 'Audit';
}

/**
 * Kyverno's override test: listed namespaces (wildcards) and a namespace selector must both hold
 * when given; an override with neither applies everywhere. Invalid actions never apply.
 */
function overrideApplies(override: FailureActionOverride, scope: NamespaceScope): boolean {
  if (!['enforce', 'audit'].includes(String(override.action).toLowerCase())) return false;
  const selected = () =>
    !override.namespaceSelector || checkSelector(override.namespaceSelector, scope.namespaceLabels).matched;
  if (override.namespaces === undefined) return selected();
  const namespace = scope.namespace ?? '';
  return override.namespaces.some((pattern) => wildcardMatch(pattern, namespace)) && selected();
}

function overridden(
  overrides: readonly FailureActionOverride[] | undefined,
  scope: NamespaceScope,
): FailureAction | undefined {
  const override = overrides?.find((candidate) => overrideApplies(candidate, scope));
  return override && normalize(override.action);
}

/** The rule's own say: its `failureActionOverrides`, then its `failureAction` (validate or verifyImages). */
function ruleAction(rule: Rule, scope: NamespaceScope): FailureAction | undefined {
  return (
    overridden(rule.validate?.failureActionOverrides, scope) ??
    normalize(rule.validate?.failureAction ?? (verifyImagesFailureAction(rule) as ValidationFailureAction | undefined))
  );
}

function policyLevelAction(policy: Policy, scope: NamespaceScope): FailureAction {
  return (
    overridden(policy.spec.validationFailureActionOverrides, scope) ??
    normalize(policy.spec.validationFailureAction) ??
    'Audit'
  );
}

/**
 * The failure action in force for a rule on a resource, in Kyverno's order: the rule's
 * `failureActionOverrides`, the rule's own `failureAction`, the policy's
 * `validationFailureActionOverrides`, the policy's `validationFailureAction`, else Audit.
 */
export function failureActionFor(policy: Policy, rule: Rule, scope: NamespaceScope): FailureAction {
  return ruleAction(rule, scope) ?? policyLevelAction(policy, scope);
}

/** A policy's action as Kyverno reports it: that of its first rule which says one, else the policy's. */
export function policyFailureAction(policy: Policy, scope: NamespaceScope): FailureAction {
  for (const rule of policy.spec.rules ?? []) {
    const action = ruleAction(rule, scope);
    if (action) return action;
  }
  return policyLevelAction(policy, scope);
}

/**
 * The failure actions that hold in every namespace, worked out once per policy: without overrides in
 * the way they do not depend on where the resource lives, and the rule loop need not work them out
 * per request and rule.
 */
export interface FixedFailureActions {
  /** `policyFailureAction`'s answer, when no override can change it. */
  readonly policy: FailureAction | undefined;
  /** `failureActionFor`'s answer per rule, for the rules no override can change it for. */
  readonly rules: ReadonlyMap<Rule, FailureAction>;
}

export function fixedFailureActions(policy: Policy, rules: readonly Rule[]): FixedFailureActions {
  const anywhere: NamespaceScope = {};
  const policyFixed = !hasOverrides(policy.spec.validationFailureActionOverrides);
  const fixedRules = new Map<Rule, FailureAction>();
  for (const rule of rules) {
    if (hasOverrides(rule.validate?.failureActionOverrides) || !policyFixed) continue;
    const action = unlessMalformed(() => failureActionFor(policy, rule, anywhere));
    if (action) fixedRules.set(rule, action);
  }
  const everyRuleFixed = (policy.spec.rules ?? []).every(
    (rule) => !hasOverrides(rule.validate?.failureActionOverrides),
  );
  return {
    policy: policyFixed && everyRuleFixed ? unlessMalformed(() => policyFailureAction(policy, anywhere)) : undefined,
    rules: fixedRules,
  };
}

/** A malformed action (not text) is left to fail where it is read, as it did before. */
function unlessMalformed(action: () => FailureAction): FailureAction | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

/** Anything but none or an empty list may change the action (malformed ones fail where they are read). */
function hasOverrides(overrides: readonly FailureActionOverride[] | undefined | null): boolean {
  return overrides !== undefined && overrides !== null && !(Array.isArray(overrides) && overrides.length === 0);
}
