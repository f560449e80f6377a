/**
 * Kyverno's `--forceFailurePolicyIgnore` (chart `features.forceFailurePolicyIgnore.enabled`): every
 * policy is taken as `failurePolicy: Ignore`, whatever it says. Kyverno reads the toggle wherever it
 * asks a policy for its failure policy (Spec.GetFailurePolicy, and the CEL compilers' and webhook
 * builder's GetFailurePolicy); here the policy is rewritten once, as the caches take it in, so the
 * webhook configurations, the review paths and the workers' stores all see the same Ignore. The
 * object in the cluster is untouched (status is written through the `/status` subresource).
 */
import { isObject } from '@edict/foundation';

/**
 * `object` with `spec.failurePolicy: Ignore` (and `spec.webhookConfiguration.failurePolicy: Ignore`
 * when it names one, as a ClusterPolicy may); the object itself when it already says Ignore.
 */
export function withFailurePolicyIgnore<T extends object>(object: T): T {
  const spec = (object as { readonly spec?: unknown }).spec;
  if (!isObject(spec)) return object;
  const webhook = spec['webhookConfiguration'];
  const webhookNamesOne = isObject(webhook) && webhook['failurePolicy'] !== undefined;
  if (spec['failurePolicy'] === 'Ignore' && (!webhookNamesOne || webhook['failurePolicy'] === 'Ignore')) return object;
  return {
    ...object,
    spec: {
      ...spec,
      failurePolicy: 'Ignore',
      ...(webhookNamesOne ? { webhookConfiguration: { ...webhook, failurePolicy: 'Ignore' } } : {}),
    },
  };
}
