/**
 * What a MutatingPolicy's creation or change asks of the background controller, as Kyverno's policy
 * controller does for `evaluation.mutateExisting` (whatever `evaluation.background` says):
 *  - a policy whose targets are its own triggers (no resource rules in targetMatchConstraints): one
 *    `cel-mutate` UpdateRequest without a trigger; processing lists the objects its matchConstraints
 *    name and patches those its match conditions admit;
 *  - a policy with `targetMatchConstraints.expression`: one request per existing trigger (the
 *    objects its matchConstraints name), carrying an UPDATE admission request of the trigger, so the
 *    expression names that trigger's targets;
 *  - a policy whose targets are other objects (targetMatchConstraints resource rules): nothing; its
 *    targets change when a trigger is admitted.
 * Requests are named from the policy's identity and version and the trigger, so the same change seen
 * twice (a relist, two leaders) creates each once.
 */
import { createHash } from 'node:crypto';
import { mutatingPolicyKey, type AdmissionRequest, type UpdateRequestSpec } from '@edict/admission';
import type { CompiledMutatingPolicy, MatchResources } from '@edict/cel-policies';
import { isObject } from '@edict/foundation';
import { isAlreadyExists } from '@edict/kube';
import type { ClusterObjects } from '../update-requests/cluster-objects';
import { UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND, type UpdateRequest } from '../update-requests/update-request';
import { resourceRuleObjects, type ResourceLookup, type RuleObject } from './resource-rule-objects';

/** Triggers one policy change asks requests for, at most. */
export const MAX_TRIGGER_REQUESTS = 10_000;

/** The created and changed (spec) mutate-existing MutatingPolicies since the last look (all of them at the first). */
export class MutatingPolicyChangeTracker {
  private seen = new Map<string, string>();

  observe(policies: readonly CompiledMutatingPolicy[]): CompiledMutatingPolicy[] {
    const changed: CompiledMutatingPolicy[] = [];
    const next = new Map<string, string>();
    for (const compiled of policies) {
      const key = `${compiled.kind}/${mutatingPolicyKey(compiled)}`;
      const version = `${String(compiled.policy.metadata?.uid ?? '')}:${JSON.stringify(compiled.policy.spec ?? {})}`;
      next.set(key, version);
      if (compiled.mutateExisting && this.seen.get(key) !== version) changed.push(compiled);
    }
    this.seen = next;
    return changed;
  }
}

export interface PolicyChangeDeps {
  readonly cluster: ClusterObjects;
  readonly resourceNamed: ResourceLookup;
  /** Where UpdateRequests live. */
  readonly namespace: string;
}

/** The UpdateRequests a created or changed mutate-existing policy asks for. */
export async function policyChangeRequests(
  compiled: CompiledMutatingPolicy,
  deps: PolicyChangeDeps,
): Promise<{ requests: UpdateRequest[]; failures: string[] }> {
  if (!compiled.mutateExisting) return { requests: [], failures: [] };
  const targets = compiled.targetMatchConstraints;
  const expression = typeof targets?.expression === 'string' && targets.expression.trim() !== '';
  if (!expression) {
    if ((targets?.resourceRules ?? []).length > 0) return { requests: [], failures: [] };
    return { requests: [request(compiled, scanSpec(compiled), deps.namespace)], failures: [] };
  }
  const listing = await resourceRuleObjects(
    compiled,
    ownMatchConstraints(compiled),
    deps.cluster,
    deps.resourceNamed,
    MAX_TRIGGER_REQUESTS,
  );
  const failures = listing.failures.map((failure) => `failed to list triggers ${failure.type}: ${failure.error}`);
  if (listing.objects.length > MAX_TRIGGER_REQUESTS) {
    failures.push(`policy ${mutatingPolicyKey(compiled)} matches more than ${MAX_TRIGGER_REQUESTS} triggers`);
    return { requests: [], failures };
  }
  const requests = listing.objects
    .filter((trigger) => trigger.subresource === '')
    .map((trigger) => request(compiled, triggerSpec(compiled, trigger), deps.namespace));
  return { requests, failures };
}

function ownMatchConstraints(compiled: CompiledMutatingPolicy): MatchResources {
  const spec = isObject(compiled.policy.spec) ? compiled.policy.spec : {};
  return (isObject(spec.matchConstraints) ? spec.matchConstraints : {}) as MatchResources;
}

function baseSpec(compiled: CompiledMutatingPolicy): UpdateRequestSpec {
  return {
    requestType: 'cel-mutate',
    policy: mutatingPolicyKey(compiled),
    rule: '',
    deleteDownstream: false,
    ruleContext: [],
    resource: {},
    context: { userInfo: { userInfo: {} }, admissionRequestInfo: {} },
  };
}

/** Kyverno's bare request of a policy change: no trigger, no admission request. */
function scanSpec(compiled: CompiledMutatingPolicy): UpdateRequestSpec {
  return baseSpec(compiled);
}

/** Kyverno's request for one existing trigger: an UPDATE admission request of it, with no requester. */
function triggerSpec(compiled: CompiledMutatingPolicy, trigger: RuleObject): UpdateRequestSpec {
  const object = trigger.object;
  const apiVersion = object.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  const admissionRequest = {
    uid: '',
    kind: {
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      kind: object.kind ?? '',
    },
    resource: trigger.resource,
    ...(namespace ? { namespace } : {}),
    name,
    operation: 'UPDATE',
    userInfo: {},
    object,
  } as unknown as AdmissionRequest;
  return {
    ...baseSpec(compiled),
    resource: {
      apiVersion,
      kind: object.kind ?? '',
      ...(namespace ? { namespace } : {}),
      name,
      ...(typeof object.metadata?.uid === 'string' ? { uid: object.metadata.uid } : {}),
    },
    context: { userInfo: { userInfo: {} }, admissionRequestInfo: { operation: 'UPDATE', admissionRequest } },
  };
}

function request(compiled: CompiledMutatingPolicy, spec: UpdateRequestSpec, namespace: string): UpdateRequest {
  const metadata = compiled.policy.metadata ?? {};
  const version = String(metadata.generation ?? metadata.resourceVersion ?? '');
  const trigger = spec.resource;
  const identity =
    trigger.uid ?? `${trigger.apiVersion ?? ''}/${trigger.kind ?? ''}/${trigger.namespace ?? ''}/${trigger.name ?? ''}`;
  const hash = createHash('sha256')
    .update(
      [compiled.kind, spec.policy, String(metadata.uid ?? ''), version, spec.requestType, identity].join('\u0000'),
    )
    .digest('hex');
  return {
    apiVersion: UPDATE_REQUEST_API_VERSION,
    kind: UPDATE_REQUEST_KIND,
    metadata: { name: `ur-${hash.slice(0, 40)}`, namespace },
    spec,
  };
}

/** Creates the request unless it exists (the same change seen again); true when created. */
export async function createPolicyChangeRequest(
  cluster: Pick<ClusterObjects, 'create'>,
  request: UpdateRequest,
): Promise<boolean> {
  try {
    await cluster.create(request);
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw error;
  }
}
