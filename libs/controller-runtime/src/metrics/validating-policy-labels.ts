/**
 * Kyverno's `kyverno_validating_policy_results_total` and `..._execution_duration_seconds` (pkg/metrics
 * ValidatingMetrics): their labels, one list for the admission and reports controllers so their
 * series join, and the one result a policy evaluation counts as.
 */
export const VALIDATING_POLICY_RESULTS_TOTAL = 'kyverno_validating_policy_results_total';
export const VALIDATING_POLICY_DURATION = 'kyverno_validating_policy_execution_duration_seconds';
/** ImageValidatingPolicies count under their own names, with the same labels. */
export const IMAGE_VALIDATING_POLICY_RESULTS_TOTAL = 'kyverno_image_validating_policy_results_total';
export const IMAGE_VALIDATING_POLICY_DURATION = 'kyverno_image_validating_policy_execution_duration_seconds';

export const VALIDATING_POLICY_LABELS = [
  'policy_validation_mode',
  'policy_background_mode',
  'policy_name',
  'policy_namespace',
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'execution_cause',
  'result',
] as const;

export type ValidatingPolicyLabel = (typeof VALIDATING_POLICY_LABELS)[number];

/**
 * A ValidatingPolicy's one result for a resource: `error` when a validation errored, else `fail`
 * when one failed, `skip` when exceptions skipped all of it, else `pass`.
 */
export function validatingPolicyStatus(rules: readonly { readonly status: string }[]): string {
  const has = (status: string) => rules.some((rule) => rule.status === status);
  if (has('error')) return 'error';
  if (has('fail')) return 'fail';
  if (rules.length > 0 && rules.every((rule) => rule.status === 'skip')) return 'skip';
  return 'pass';
}
