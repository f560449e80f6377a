import { scoredResult, type Policy, type PolicyResponse, type RuleResponse, type RuleStatus } from '@edict/engine';

/**
 * A rule response as it lands in a policy report: unscored policies report failures as warnings, and
 * so do Audit rules when audit failures are reported as warnings (apply --audit-warn).
 */
export function reportResult(
  policy: Policy,
  response: PolicyResponse,
  rule: RuleResponse,
  auditWarn = false,
): RuleStatus {
  const status = scoredResult(policy, rule.status);
  if (status === 'fail' && auditWarn && (rule.failureAction ?? response.validationFailureAction) === 'Audit')
    return 'warn';
  return status;
}
