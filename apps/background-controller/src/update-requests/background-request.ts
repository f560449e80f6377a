/**
 * The rule's request rebuilt from an UpdateRequest, as Kyverno's background context does: the
 * admission request the admission controller kept (`spec.context.admissionRequestInfo`) for the
 * operation, the old object and `request.*` variables, the requester with roles from
 * `spec.context.userInfo`, and the trigger as it is now as `request.object`.
 */
import {
  toResourceRequest,
  type AdmissionRequest,
  type UpdateRequestResourceSpec,
  type UpdateRequestSpec,
} from '@edict/admission';
import type { Operation, ResourceRequest } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { ClusterObjects } from './cluster-objects';
import { describeResource } from './update-request';

/** The admission request kept in the UpdateRequest, if any. */
export function admissionRequestOf(spec: UpdateRequestSpec): AdmissionRequest | undefined {
  const request = spec.context?.admissionRequestInfo?.admissionRequest;
  return request && typeof request === 'object' ? request : undefined;
}

export function operationOf(spec: UpdateRequestSpec): Operation {
  const info = spec.context?.admissionRequestInfo;
  return (info?.operation ?? info?.admissionRequest?.operation ?? 'CREATE') as Operation;
}

export class TriggerNotFoundError extends Error {
  override readonly name = 'TriggerNotFoundError';
}

/**
 * The trigger. Read from the cluster when the request has no admission request, was a CREATE, or
 * `preferCluster` (generate rules act on the trigger as it is now); otherwise, and when it is gone,
 * the object the admission request carried (`oldObject` for DELETE), as Kyverno's mutate-existing
 * controller takes it. Throws TriggerNotFoundError when neither has it.
 */
export async function resolveTrigger(
  spec: UpdateRequestSpec,
  trigger: UpdateRequestResourceSpec,
  cluster: Pick<ClusterObjects, 'get' | 'list'>,
  options: { preferCluster: boolean },
): Promise<KubeObject> {
  const admission = admissionRequestOf(spec);
  const operation = operationOf(spec);
  const readCluster = operation !== 'DELETE' && (options.preferCluster || !admission || operation === 'CREATE');
  if (readCluster && trigger.kind && (trigger.name || trigger.uid)) {
    const current = await readTrigger(trigger, cluster);
    if (current) return current;
  }
  const kept = operation === 'DELETE' ? (admission?.oldObject ?? admission?.object) : admission?.object;
  if (kept && typeof kept === 'object') return kept as KubeObject;
  throw new TriggerNotFoundError(`trigger ${describeResource(trigger)} not found`);
}

/**
 * The trigger by name, or by uid when the request names no name (requests made from a downstream
 * object's labels know only the uid, as in Kyverno).
 */
async function readTrigger(
  trigger: UpdateRequestResourceSpec,
  cluster: Pick<ClusterObjects, 'get' | 'list'>,
): Promise<KubeObject | undefined> {
  const apiVersion = trigger.apiVersion ?? 'v1';
  const kind = trigger.kind ?? '';
  const namespace = kind === 'Namespace' ? undefined : trigger.namespace || undefined;
  if (!trigger.name) {
    for await (const page of cluster.list({ apiVersion, kind, ...(namespace ? { namespace } : {}) })) {
      const found = page.find((object) => object.metadata?.uid === trigger.uid);
      if (found) return found;
    }
    return undefined;
  }
  return cluster.get({ apiVersion, kind, namespace, name: trigger.name });
}

/** The engine's request for `trigger` under the UpdateRequest's context. */
export function backgroundRequest(
  spec: UpdateRequestSpec,
  trigger: KubeObject,
  namespaceLabels: Record<string, string> | undefined,
): ResourceRequest {
  const info = spec.context?.userInfo;
  const roles = { roles: info?.roles ?? [], clusterRoles: info?.clusterRoles ?? [] };
  const operation = operationOf(spec);
  const admission = admissionRequestOf(spec);
  // Kyverno puts the trigger as it is now in `request.object`, also for DELETE.
  const base: ResourceRequest = admission
    ? toResourceRequest({ ...admission, object: trigger }, { roles, namespaceLabels })
    : {
        operation,
        user: { userInfo: info?.userInfo ?? {}, ...roles },
        ...(namespaceLabels ? { namespaceLabels } : {}),
      };
  const userInfo = info?.userInfo ?? base.user?.userInfo ?? {};
  return { ...base, operation, resource: trigger, user: { userInfo, ...roles } };
}
