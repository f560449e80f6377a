import type { Policy, Rule, ValidationFailureAction } from '../policy/types';
import { wildcardMatch } from '../values/wildcard';
import { verifyImagesFailureAction } from '../validate/unsupported-verify-images';

export type FailureAction = 'Enforce' | 'Audit';

function normalize(action: ValidationFailureAction | undefined): FailureAction | undefined {
  if (!action) return undefined;
  return action.toLowerCase() === 'enforce' ? 'Enforce' : 'Audit';
}

/**
 * The failure action in force for a rule on a resource: the rule's own `failureAction` (of its
 * validate, or of its verifyImages entries), else a
 * namespace override, else the policy's `validationFailureAction`, else Audit.
 */
export function failureActionFor(policy: Policy, rule: Rule | undefined, namespace: string | undefined): FailureAction {
  const ruleAction = normalize(
    rule?.validate?.failureAction ?? (rule && (verifyImagesFailureAction(rule) as ValidationFailureAction | undefined)),
  );
  if (ruleAction) return ruleAction;
  for (const override of policy.spec.validationFailureActionOverrides ?? []) {
    if (namespace && (override.namespaces ?? []).some((pattern) => wildcardMatch(pattern, namespace))) {
      return normalize(override.action) ?? 'Audit';
    }
  }
  return normalize(policy.spec.validationFailureAction) ?? 'Audit';
}
