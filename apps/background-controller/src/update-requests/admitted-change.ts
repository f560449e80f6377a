/**
 * Whether the change an UpdateRequest answers is stored yet. The admission controller stores a
 * trigger's request before it answers the review (so a crash cannot lose it), which means the
 * request can reach the background controller before the API server has stored the change: a
 * generate rule would then read a trigger that does not exist yet, or its old version. A request
 * from an admission review waits while its change is not visible:
 *  - CREATE: the trigger (same uid when the request names one) is not in the cluster yet;
 *  - UPDATE: the trigger still has the resourceVersion of the review's old object;
 *  - DELETE: the trigger (same uid) is still there and not being deleted.
 * It waits at most `windowMs` from the request's creation: a change that another webhook refused,
 * or an update that changed nothing, is never stored, and the request then runs as Kyverno runs it.
 * Requests with no admission request (a policy's own, from its lifecycle) never wait.
 */
import type { UpdateRequestSpec } from '@edict/admission';
import type { KubeObject } from '@edict/foundation';
import { admissionRequestOf, operationOf } from './background-request';
import type { ClusterObjects } from './cluster-objects';

export interface AdmittedChangeOptions {
  /** How long after its creation a request may wait for its change. */
  readonly windowMs: number;
  readonly now: () => number;
}

/** True while the request should wait for its change to be stored. */
export async function awaitsAdmittedChange(
  request: Pick<KubeObject, 'metadata'> & { spec: UpdateRequestSpec },
  cluster: Pick<ClusterObjects, 'get'>,
  options: AdmittedChangeOptions,
): Promise<boolean> {
  const admission = admissionRequestOf(request.spec);
  if (!admission) return false;
  const timestamp = request.metadata?.creationTimestamp;
  const created = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (!Number.isFinite(created) || options.now() - created >= options.windowMs) return false;
  // A subresource review (pods/status) changes its parent: whether it is stored cannot be told by the parent's identity.
  if (admission.subResource) return false;
  const trigger = request.spec.resource;
  if (!trigger.kind || !trigger.name) return false;
  const current = await currentTrigger(trigger, cluster);
  const sameObject = current !== undefined && (!trigger.uid || current.metadata?.uid === trigger.uid);
  switch (operationOf(request.spec)) {
    case 'CREATE':
      return !sameObject;
    case 'UPDATE': {
      const before = (admission.oldObject as KubeObject | null | undefined)?.metadata?.resourceVersion;
      return sameObject && before !== undefined && current.metadata?.resourceVersion === before;
    }
    case 'DELETE':
      return sameObject && !current.metadata?.deletionTimestamp;
    default:
      return false;
  }
}

function currentTrigger(
  trigger: UpdateRequestSpec['resource'],
  cluster: Pick<ClusterObjects, 'get'>,
): Promise<KubeObject | undefined> {
  const kind = trigger.kind ?? '';
  return cluster.get({
    apiVersion: trigger.apiVersion ?? 'v1',
    kind,
    namespace: kind === 'Namespace' ? undefined : trigger.namespace || undefined,
    name: trigger.name ?? '',
  });
}
