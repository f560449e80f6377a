/**
 * The UpdateRequests an admitted request makes for MutatingPolicies with `evaluation.mutateExisting`
 * (Kyverno's mpol handler asks its engine which mutate-existing policies the request matches and
 * writes one `cel-mutate` UpdateRequest per policy). Only the decision is made here: whether the
 * request fires the policy (its matchConstraints, or an autogen config's, and its match conditions);
 * the background controller finds the targets and patches them.
 */
import {
  triggersMutateExisting,
  type CelPolicyInput,
  type CompiledMutatingPolicy,
  type MutatingPolicyContext,
} from '@edict/cel-policies';
import type { ResourceRequest } from '@edict/engine';
import { isObject, type KubeObject } from '@edict/foundation';
import { admissionRequestOf } from '../request/to-resource-request';
import { requestContext, triggerResourceSpec, type BackgroundOptions, type UpdateRequestSpec } from './update-requests';

/** Kyverno's request type for a MutatingPolicy's mutate-existing work (kyverno.io/v2 CELMutate). */
export const CEL_MUTATE_REQUEST_TYPE = 'cel-mutate';

/** `name` for a MutatingPolicy, `namespace/name` for a NamespacedMutatingPolicy (the UpdateRequest's `spec.policy`). */
export function mutatingPolicyKey(compiled: Pick<CompiledMutatingPolicy, 'name' | 'namespace'>): string {
  return compiled.namespace !== undefined ? `${compiled.namespace}/${compiled.name}` : compiled.name;
}

export interface MutateExistingRequestOptions extends BackgroundOptions {
  /** The request's namespace as an object (`namespaceObject`, namespaceSelector); null when cluster-scoped. */
  readonly namespaceObject?: KubeObject | null;
}

/**
 * One `cel-mutate` UpdateRequest spec per mutate-existing MutatingPolicy the admitted request fires,
 * carrying the requester and the admission request (the background controller evaluates the targets
 * under it). None for a dry run (the webhook declares no side effects on dry run), and none for the
 * background controller's own requests unless the policy sets `evaluation.skipBackgroundRequests: false`.
 */
export async function mutateExistingRequests(
  request: ResourceRequest,
  policies: readonly CompiledMutatingPolicy[],
  context: MutatingPolicyContext,
  options: MutateExistingRequestOptions = {},
): Promise<UpdateRequestSpec[]> {
  const admission = admissionRequestOf(request);
  if (request.dryRun === true || admission?.dryRun === true) return [];
  const username = request.user?.userInfo?.username ?? '';
  const fromBackground = options.backgroundUsername !== undefined && username === options.backgroundUsername;
  const gvr = admission?.resource;
  const input: CelPolicyInput = {
    request,
    resource: { group: gvr?.group ?? '', version: gvr?.version ?? '', resource: gvr?.resource ?? '' },
    namespaceObject: options.namespaceObject ?? null,
  };
  const specs: UpdateRequestSpec[] = [];
  for (const compiled of policies) {
    if (!compiled.mutateExisting) continue;
    if (fromBackground && skipsBackgroundRequests(compiled)) continue;
    if (!(await triggersMutateExisting(compiled, input, context))) continue;
    specs.push(mutateExistingRequestSpec(compiled, request));
  }
  return specs;
}

/** Kyverno's `evaluation.skipBackgroundRequests` (default true). */
function skipsBackgroundRequests(compiled: CompiledMutatingPolicy): boolean {
  const spec = isObject(compiled.policy.spec) ? compiled.policy.spec : {};
  const evaluation = isObject(spec.evaluation) ? spec.evaluation : {};
  return evaluation.skipBackgroundRequests !== false;
}

function mutateExistingRequestSpec(compiled: CompiledMutatingPolicy, request: ResourceRequest): UpdateRequestSpec {
  return {
    requestType: CEL_MUTATE_REQUEST_TYPE,
    policy: mutatingPolicyKey(compiled),
    rule: '',
    deleteDownstream: false,
    ruleContext: [],
    resource: triggerResourceSpec(request),
    context: requestContext(request),
  };
}
