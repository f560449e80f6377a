import type { Policy, PolicyResponse, RuleResponse, RuleStatus } from '@edict/engine';

/**
 * A rule response as it lands in a policy report: `fail` becomes `warn` for policies annotated
 * `policies.kyverno.io/scored: "false"`, and for Audit policies when audit failures are reported as
 * warnings (apply --audit-warn). Any other status is reported as is.
 */
export function reportResult(policy: Policy, response: PolicyResponse, rule: RuleResponse, auditWarn = false): RuleStatus {
  if (rule.status !== 'fail') return rule.status;
  if (!isScored(policy)) return 'warn';
  if (auditWarn && response.validationFailureAction === 'Audit') return 'warn';
  return 'fail';
}

export function isScored(policy: Policy): boolean {
  return policy.metadata.annotations?.['policies.kyverno.io/scored'] !== 'false';
}
