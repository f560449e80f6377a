import type { Policy } from '../policy/types';
import type { RuleStatus } from './types';

export const SCORED_ANNOTATION = 'policies.kyverno.io/scored';

/** The result a policy report shows for a rule status: unscored policies report failures as warnings. */
export function scoredResult(policy: Policy, status: RuleStatus): RuleStatus {
  if (status === 'fail' && policy.metadata.annotations?.[SCORED_ANNOTATION] === 'false') return 'warn';
  return status;
}
