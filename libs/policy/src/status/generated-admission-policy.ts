/**
 * Whether the API server enforces a policy itself, through the ValidatingAdmissionPolicy or
 * MutatingAdmissionPolicy generated from it (as the generator's status says). Kyverno then leaves
 * the policy out of its webhooks and background scans, so it is not enforced twice.
 */
import { isObject } from '@edict/foundation';

export function enforcedByGeneratedAdmissionPolicy(policy: {
  readonly kind?: unknown;
  readonly status?: unknown;
}): boolean {
  const status = policy.status;
  if (!isObject(status)) return false;
  switch (policy.kind) {
    case 'ClusterPolicy':
      return isObject(status.validatingadmissionpolicy) && status.validatingadmissionpolicy.generated === true;
    case 'ValidatingPolicy':
    case 'MutatingPolicy':
      return status.generated === true;
    default:
      return false;
  }
}
