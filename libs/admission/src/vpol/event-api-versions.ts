import type { PolicyResponse } from '@edict/engine';

/** Kyverno's informers read the policies.kyverno.io kinds (and their exceptions) at v1beta1: events name them so. */
const CEL_POLICIES_API_VERSION = 'policies.kyverno.io/v1beta1';

const CEL_POLICY_KINDS: ReadonlySet<string> = new Set([
  'ValidatingPolicy',
  'NamespacedValidatingPolicy',
  'ImageValidatingPolicy',
  'NamespacedImageValidatingPolicy',
  'MutatingPolicy',
  'NamespacedMutatingPolicy',
]);
const isCelPolicyKind = (kind: string) => CEL_POLICY_KINDS.has(kind);

/** The apiVersion an Event's reference to a policy of `kind` carries. */
export function policyEventApiVersion(kind: PolicyResponse['policy']['kind']): string {
  return isCelPolicyKind(kind) ? CEL_POLICIES_API_VERSION : 'kyverno.io/v1';
}

/** The apiVersion an Event's reference to a PolicyException that skipped a policy of `kind` carries. */
export function exceptionEventApiVersion(kind: PolicyResponse['policy']['kind']): string {
  return isCelPolicyKind(kind) ? CEL_POLICIES_API_VERSION : 'kyverno.io/v2';
}
