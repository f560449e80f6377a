/**
 * What `synchronize` does besides writing the rule's objects, as Kyverno's generate controller:
 *  - deletes what a policy generated for a trigger (an UpdateRequest with `deleteDownstream`: the
 *    trigger was deleted or no longer matches, or the clone source was deleted);
 *  - marks a clone source with the `generate.kyverno.io/clone-source` label, so that admission
 *    recognises a change to it and propagates it to the copies.
 * Both are safe to run twice or from two leaders: a missing object is already done.
 */
import type { UpdateRequestResourceSpec } from '@edict/admission';
import {
  generatedForTriggerSelector,
  generatedTypes,
  LABEL_CLONE_SOURCE,
  type GeneratedFrom,
  type Rule,
} from '@edict/engine';
import { isConflict, isNotFound } from '@edict/kube';
import { deleteAll, listAll, type ClusterObjects, type ObjectRef } from '../update-requests/cluster-objects';

/** Attempts of one label write against concurrent writers. */
const CONFLICT_ATTEMPTS = 5;

/** Deletes the objects of the rule's types that the policy generated for `trigger`; returns them. */
export async function deleteGeneratedFor(
  rule: Rule,
  policy: { name: string; namespace?: string },
  trigger: UpdateRequestResourceSpec,
  cluster: ClusterObjects,
): Promise<UpdateRequestResourceSpec[]> {
  const labelSelector = Object.entries(generatedForTriggerSelector(policy, trigger))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return deleteAll(cluster, await listAll(cluster, generatedTypes(rule), labelSelector));
}

/** Labels the clone sources the rule's objects were copied from (entries of generated data are skipped). */
export async function markCloneSources(sources: readonly GeneratedFrom[], cluster: ClusterObjects): Promise<void> {
  const done = new Set<string>();
  for (const from of sources) {
    if (from.type !== 'clone') continue;
    const { namespace, ...rest } = from.source;
    const ref: ObjectRef = namespace ? { ...rest, namespace } : rest;
    const key = JSON.stringify(ref);
    if (done.has(key)) continue;
    done.add(key);
    await markSource(ref, cluster);
  }
}

async function markSource(ref: ObjectRef, cluster: ClusterObjects): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const source = await cluster.get(ref);
    if (!source || LABEL_CLONE_SOURCE in (source.metadata?.labels ?? {})) return;
    const labels = { ...source.metadata?.labels, [LABEL_CLONE_SOURCE]: '' };
    try {
      await cluster.replace({ ...source, metadata: { ...source.metadata, labels } });
      return;
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
    }
  }
}
