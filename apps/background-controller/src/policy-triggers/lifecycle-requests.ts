/**
 * UpdateRequests a policy's lifecycle creates for the background controller to process, one per
 * rule and trigger. Which triggers a rule gets is decided by the engine as on admission (match,
 * exclude, preconditions, exceptions: updateRequestsFor), for an object that exists: operation
 * CREATE, no admission request, no requester (Kyverno's background context).
 *
 * Idempotent: a request's name is a hash of the policy (uid and generation), the rule and the
 * trigger, so the same change seen twice (a relist, two leaders overlapping) creates it once; the
 * second create answers 409 and is counted as done.
 */
import { createHash } from 'node:crypto';
import { updateRequestsFor, type AdmissionEngine, type UpdateRequestSpec } from '@edict/admission';
import type { CompiledPolicy, Rule } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { isAlreadyExists } from '@edict/kube';
import type { CachedPolicy } from '@edict/policy';
import { UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND } from '../update-requests/update-request';
import type { ClusterListing } from './cluster-listing';

export interface LifecycleRequestDeps {
  readonly cluster: ClusterListing;
  readonly engine: AdmissionEngine;
  /** The labels of a namespace, for namespaceSelector (undefined for cluster-scoped triggers). */
  namespaceLabels(namespace: string | undefined): Promise<Record<string, string> | undefined>;
  /** Where UpdateRequests live. */
  readonly namespace: string;
}

/** The policy as the engine should see it: only `rules`, and never skipped for `admission: false`. */
export function narrowedPolicy(compiled: CompiledPolicy, rules: readonly Rule[]): CompiledPolicy {
  const names = new Set(rules.map((rule) => rule.name));
  const { admission: _admission, ...spec } = compiled.policy.spec;
  return {
    ...compiled,
    policy: { ...compiled.policy, spec },
    validateRules: [],
    mutateRules: compiled.mutateRules.filter((rule) => names.has(rule.name)),
    generateRules: compiled.generateRules.filter((rule) => names.has(rule.name)),
  };
}

/** The requests the rules of `policy` (already narrowed) make for `trigger`. */
export async function requestsForTrigger(
  policy: CompiledPolicy,
  trigger: KubeObject,
  deps: LifecycleRequestDeps,
): Promise<UpdateRequestSpec[]> {
  const namespaceLabels = await deps.namespaceLabels(trigger.metadata?.namespace);
  return updateRequestsFor(
    {
      operation: 'CREATE',
      resource: trigger,
      user: { userInfo: {} },
      ...(namespaceLabels ? { namespaceLabels } : {}),
    },
    [policy],
    deps.engine,
  );
}

/** Creates the request unless it exists; true when this call created it. */
export async function createLifecycleRequest(
  policy: CachedPolicy,
  spec: UpdateRequestSpec,
  deps: LifecycleRequestDeps,
): Promise<boolean> {
  const request = {
    apiVersion: UPDATE_REQUEST_API_VERSION,
    kind: UPDATE_REQUEST_KIND,
    metadata: { name: requestName(policy, spec), namespace: deps.namespace },
    spec,
  };
  try {
    await deps.cluster.create(request);
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw error;
  }
}

function requestName(policy: CachedPolicy, spec: UpdateRequestSpec): string {
  const source = policy.source?.metadata as { generation?: number } | undefined;
  const version = source?.generation ?? policy.resourceVersion ?? '';
  const trigger = spec.resource;
  const identity = trigger.uid ?? `${trigger.apiVersion}/${trigger.kind}/${trigger.namespace ?? ''}/${trigger.name}`;
  const hash = createHash('sha256')
    .update([policy.key, policy.uid ?? '', version, spec.requestType, spec.rule, identity].join('\u0000'))
    .digest('hex');
  return `ur-${hash.slice(0, 40)}`;
}
