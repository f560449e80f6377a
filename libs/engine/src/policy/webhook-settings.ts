import type { Policy } from './types';

export type FailurePolicy = 'Fail' | 'Ignore';

/**
 * The policy's failure policy, as Kyverno's Spec.GetFailurePolicy: `webhookConfiguration.failurePolicy`,
 * else the older `spec.failurePolicy`, else Fail. The cache, the webhook builder and the review paths
 * all read it here, so a policy is published and served under the same one.
 */
export function failurePolicyOf(policy: Pick<Policy, 'spec'>): FailurePolicy {
  const configured = policy.spec.webhookConfiguration?.['failurePolicy'];
  if (configured === 'Ignore' || configured === 'Fail') return configured;
  return policy.spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
}

/**
 * The webhook timeout the policy asks for (Spec.GetWebhookTimeoutSeconds):
 * `webhookConfiguration.timeoutSeconds`, else `spec.webhookTimeoutSeconds`; undefined when neither is set.
 */
export function webhookTimeoutSecondsOf(policy: Pick<Policy, 'spec'>): number | undefined {
  const configured = policy.spec.webhookConfiguration?.['timeoutSeconds'];
  if (typeof configured === 'number') return configured;
  const legacy = policy.spec.webhookTimeoutSeconds;
  return typeof legacy === 'number' ? legacy : undefined;
}
