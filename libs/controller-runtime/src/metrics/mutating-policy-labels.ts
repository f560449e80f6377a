/**
 * Kyverno's `kyverno_mutating_policy_results_total` and `..._execution_duration_seconds` (pkg/metrics
 * MutatingMetrics): their labels, one list for the admission and reports controllers so their
 * series join.
 */
export const MUTATING_POLICY_RESULTS_TOTAL = 'kyverno_mutating_policy_results_total';
export const MUTATING_POLICY_DURATION = 'kyverno_mutating_policy_execution_duration_seconds';

export const MUTATING_POLICY_LABELS = [
  'policy_background_mode',
  'policy_name',
  'policy_namespace',
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'execution_cause',
  'result',
] as const;

export type MutatingPolicyLabel = (typeof MUTATING_POLICY_LABELS)[number];
