/**
 * The Event Kyverno's background controller emits for a target a MutatingPolicy patched (its
 * GenerateEvents on the policy's passing response): `PolicyApplied` on the policy (named at
 * policies.kyverno.io/v1beta1, as Kyverno's informers read it), related to the target,
 * `<Kind> <ns>/<name> is successfully mutated`, action `Resource Mutated`.
 */
import type { CompiledMutatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import type { EventInput } from '@edict/kube';

const CEL_POLICIES_API_VERSION = 'policies.kyverno.io/v1beta1';

export function mutatingPolicyAppliedEvent(
  compiled: Pick<CompiledMutatingPolicy, 'kind' | 'name' | 'namespace' | 'policy'>,
  target: KubeObject,
): EventInput {
  const { name = '', namespace, uid } = target.metadata ?? {};
  const policyUid = compiled.policy.metadata?.uid;
  return {
    regarding: {
      apiVersion: CEL_POLICIES_API_VERSION,
      kind: compiled.kind,
      name: compiled.name,
      ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
      ...(typeof policyUid === 'string' ? { uid: policyUid } : {}),
    },
    related: {
      ...(target.apiVersion ? { apiVersion: target.apiVersion } : {}),
      kind: target.kind ?? '',
      name,
      ...(namespace ? { namespace } : {}),
      ...(typeof uid === 'string' ? { uid } : {}),
    },
    type: 'Normal',
    reason: 'PolicyApplied',
    action: 'Resource Mutated',
    note: `${target.kind ?? ''} ${namespace ? `${namespace}/` : ''}${name} is successfully mutated`,
  };
}
