import type { Policy } from '../policy/types';
import type { RuleStatus } from './types';

export const SCORED_ANNOTATION = 'policies.kyverno.io/scored';

/** False when the policy says `policies.kyverno.io/scored: "false"`: its failures count as warnings. */
export function isScored(policy: Pick<Policy, 'metadata'>): boolean {
  return policy.metadata.annotations?.[SCORED_ANNOTATION] !== 'false';
}

/** The result a policy report shows for a rule status: unscored policies report failures as warnings. */
export function scoredResult(policy: Policy, status: RuleStatus): RuleStatus {
  return status === 'fail' && !isScored(policy) ? 'warn' : status;
}
