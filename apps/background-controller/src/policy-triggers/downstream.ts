/**
 * A generate rule's downstream objects, found by the labels Kyverno stamps on what it generates
 * (managed-by, policy name and namespace, rule name), and the two things a policy's lifecycle does
 * to them: delete them, or let go of them (the policy and rule labels removed, the object kept).
 * Both are safe to run twice or from two leaders: a missing object is already done.
 */
import {
  LABEL_MANAGED_BY,
  LABEL_POLICY_NAME,
  LABEL_POLICY_NAMESPACE,
  LABEL_RULE_NAME,
  MANAGED_BY_KYVERNO,
} from '@edict/engine';
import { isConflict, isNotFound } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { CachedPolicy } from '@edict/policy';
import { deleteAll, listAll, objectRef, type ClusterObjects } from '../update-requests/cluster-objects';
import type { TargetType } from './rule-changes';

/** Attempts of one label removal against concurrent writers. */
const CONFLICT_ATTEMPTS = 5;

/** The label selector of what `rule` of `policy` generated. */
export function downstreamSelector(policy: Pick<CachedPolicy, 'name' | 'namespace'>, rule: string): string {
  return [
    `${LABEL_MANAGED_BY}=${MANAGED_BY_KYVERNO}`,
    `${LABEL_POLICY_NAME}=${policy.name}`,
    `${LABEL_POLICY_NAMESPACE}=${policy.namespace ?? ''}`,
    `${LABEL_RULE_NAME}=${rule}`,
  ].join(',');
}

/**
 * Every downstream object of `rule` of the given types, in every namespace; a namespaced Policy's
 * only in its own namespace (labels elsewhere are not its doing, and are left alone).
 */
export async function findDownstream(
  cluster: ClusterObjects,
  policy: Pick<CachedPolicy, 'name' | 'namespace'>,
  rule: string,
  types: readonly TargetType[],
): Promise<KubeObject[]> {
  const found = await listAll(cluster, types, downstreamSelector(policy, rule));
  if (!policy.namespace) return found;
  return found.filter((object) => object.metadata?.namespace === policy.namespace);
}

/** Deletes the objects; returns how many it deleted. */
export async function deleteDownstream(cluster: ClusterObjects, objects: readonly KubeObject[]): Promise<number> {
  return (await deleteAll(cluster, objects)).length;
}

/** Removes the policy and rule labels, as Kyverno does when a rule's target changes; returns how many it changed. */
export async function releaseDownstream(cluster: ClusterObjects, objects: readonly KubeObject[]): Promise<number> {
  let released = 0;
  for (const listed of objects) {
    let current: KubeObject | undefined = listed;
    for (let attempt = 1; current; attempt++) {
      const labels = { ...current.metadata?.labels };
      delete labels[LABEL_POLICY_NAME];
      delete labels[LABEL_POLICY_NAMESPACE];
      delete labels[LABEL_RULE_NAME];
      try {
        await cluster.replace({ ...current, metadata: { ...current.metadata, labels } });
        released++;
        break;
      } catch (error) {
        if (isNotFound(error)) break;
        if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
        current = await cluster.get(objectRef(current));
      }
    }
  }
  return released;
}
