import { admissionPatch, type JsonPatchOperation } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CelPolicyInput } from '../evaluate/input';
import { evaluateMutatingPolicy, type MutatingPolicyContext } from './evaluate';
import type { CompiledMutatingPolicy, MutatingPolicyResult } from './types';

/** Every MutatingPolicy's answer on one request, and the object after all of them. */
export interface MutatingChainResult {
  /** The last answer of each policy that applied, in policy order. */
  readonly results: readonly { readonly policy: CompiledMutatingPolicy; readonly result: MutatingPolicyResult }[];
  /** The request's object after every mutation (the input's when none patched it). */
  readonly patchedResource?: KubeObject;
  /** RFC 6902 operations from the request's object to patchedResource: the admission response's patch. */
  readonly patches: readonly JsonPatchOperation[];
}

/**
 * MutatingPolicies on one admission request as the admission chain runs them: in order, each on the
 * object the previous ones patched; then, as Kubernetes reinvokes, each policy whose
 * reinvocationPolicy is IfNeeded runs once more when a later policy changed the object after it.
 * Policies answering `error` leave the object as it was (their failurePolicy is the caller's).
 */
export async function evaluateMutatingPolicies(
  policies: readonly CompiledMutatingPolicy[],
  input: CelPolicyInput,
  context: MutatingPolicyContext,
): Promise<MutatingChainResult> {
  const original = input.request.operation === 'DELETE' ? undefined : input.request.resource;
  let current = original;
  const last = new Map<CompiledMutatingPolicy, MutatingPolicyResult>();
  /** The object as each policy left it (to tell whether a later policy changed it). */
  const after = new Map<CompiledMutatingPolicy, KubeObject | undefined>();
  const run = async (policy: CompiledMutatingPolicy) => {
    const request = current ? { ...input.request, resource: current } : input.request;
    const result = await evaluateMutatingPolicy(policy, { ...input, request }, context);
    if (!result) return;
    last.set(policy, result);
    if (result.status === 'pass' && result.patchedResource) current = result.patchedResource;
    after.set(policy, current);
  };
  for (const policy of policies) await run(policy);
  const changedLater = policies.filter(
    (policy) =>
      policy.reinvocationPolicy === 'IfNeeded' &&
      after.has(policy) &&
      admissionPatch((after.get(policy) ?? {}) as KubeObject, (current ?? {}) as KubeObject).length > 0,
  );
  for (const policy of changedLater) await run(policy);
  return {
    results: policies.flatMap((policy) => {
      const result = last.get(policy);
      return result ? [{ policy, result }] : [];
    }),
    ...(current ? { patchedResource: current } : {}),
    patches: original && current ? admissionPatch(original, current) : [],
  };
}
