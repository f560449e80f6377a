/**
 * The labels of Kyverno's `kyverno_policy_results_total`, one list for every controller that counts
 * rule results (admission requests, background scans), so that their series join in one query.
 */
export const POLICY_RESULT_LABELS = [
  'policy_validation_mode',
  'policy_type',
  'policy_background_mode',
  'policy_name',
  'policy_namespace',
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'rule_name',
  'rule_result',
  'rule_type',
  'rule_execution_cause',
  'dry_run',
] as const;

export type PolicyResultLabel = (typeof POLICY_RESULT_LABELS)[number];
