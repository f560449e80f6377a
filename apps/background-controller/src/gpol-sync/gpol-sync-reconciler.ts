/**
 * What `evaluation.synchronize` does to a GeneratingPolicy's downstream, as Kyverno's watch
 * manager (pkg/background/gpol/dynamic_watcher.go) and policy controller (pkg/policy/gpol.go) do:
 *  - a trigger is reconciled: generated again, and what the policy made for it before but no longer
 *    asks for (another name, a trigger that stopped matching, a trigger that is gone) deleted;
 *    a downstream object that was modified or deleted is reconciled through its trigger, which
 *    restores it;
 *  - a clone source that changed is copied again into its synchronized copies; one deleted takes
 *    its copies with it;
 *  - a deleted policy takes its generated data with it (not its clones, not when
 *    `orphanDownstreamOnPolicyDelete` is on).
 * Kyverno keeps the expected content in memory and deletes before it regenerates; here every step
 * reads the cluster and converges on the policy's answer, so a step run twice, by two leaders or by
 * a new leader after a crash half-way, ends the same: nothing missing, nothing doubled.
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { isConflict, isNotFound } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import {
  deleteAll,
  listAll,
  objectRef,
  type ClusterObjects,
  type ListRequest,
} from '../update-requests/cluster-objects';
import { contentDigest, type DownstreamRecord } from './downstream-record';
import {
  cloneSelector,
  gpolDownstreamSelector,
  isClone,
  objectKey,
  ownedBy,
  type GpolRef,
  type TriggerRef,
} from './gpol-downstream';
import type { GpolGeneration } from './gpol-generation';

export type DownstreamType = Pick<ListRequest, 'apiVersion' | 'kind'>;

export interface GpolSyncDeps {
  readonly cluster: ClusterObjects;
  readonly generation: GpolGeneration;
  readonly record: DownstreamRecord;
  log(message: string): void;
}

/** What one trigger's reconcile left in the cluster. */
export interface TriggerOutcome {
  /** The downstream objects as they are now (read back after the generation). */
  readonly downstream: readonly KubeObject[];
  /** Objects deleted: no longer asked for, or their trigger is gone. */
  readonly deleted: number;
}

/** Attempts of one copy of a clone source against concurrent writers. */
const CONFLICT_ATTEMPTS = 5;

export class GpolSyncReconciler {
  constructor(private readonly deps: GpolSyncDeps) {}

  /**
   * Generates `policy` for the trigger again and deletes what it made for it before but does not
   * ask for now; a trigger that is gone (or replaced: another uid) loses all its downstream.
   * `types` are the downstream types to look in besides those generated now.
   */
  async reconcileTrigger(
    policy: CompiledGeneratingPolicy,
    ref: TriggerRef,
    types: readonly DownstreamType[],
  ): Promise<TriggerOutcome> {
    const { cluster, record } = this.deps;
    const trigger = await cluster.get(ref);
    if (!trigger || trigger.metadata?.uid !== ref.uid || trigger.metadata?.deletionTimestamp) {
      return { downstream: [], deleted: await this.deleteForTrigger(policy, ref.uid, types) };
    }
    const result = await this.deps.generation.generate(policy, trigger);
    const wanted = new Set(result.objects.map(objectKey));
    const existing = await this.find(policy, allTypes(types, result.objects), ref.uid);
    let deleted = 0;
    if (result.status === 'generated') {
      const stale = existing.filter((object) => !wanted.has(objectKey(object)));
      deleted = (await deleteAll(cluster, stale)).length;
      for (const object of stale) if (object.metadata?.uid) record.forget(object.metadata.uid);
    }
    const downstream: KubeObject[] = [];
    for (const object of result.objects) {
      const current = await cluster.get(objectRef(object));
      if (!current) continue;
      record.record(current);
      downstream.push(current);
    }
    return { downstream, deleted };
  }

  /**
   * Kyverno's cache restore for one trigger: what the policy would generate for it, without
   * writing anything. The objects that exist (those with a uid) are recorded; undefined when the
   * trigger has none (the trigger is then left to its UpdateRequests, as Kyverno leaves it).
   */
  async restoreTrigger(policy: CompiledGeneratingPolicy, trigger: KubeObject): Promise<KubeObject[] | undefined> {
    const result = await this.deps.generation.generate(policy, trigger, { dryRun: true });
    const existing = result.objects.filter((object) => object.metadata?.uid);
    if (existing.length === 0) return undefined;
    for (const object of existing) this.deps.record.record(object);
    return [...result.objects];
  }

  /** Deletes what `policy` generated for the trigger with this uid (Kyverno's DeleteDownstreams). */
  async deleteForTrigger(policy: GpolRef, triggerUid: string, types: readonly DownstreamType[]): Promise<number> {
    const objects = await this.find(policy, types, triggerUid);
    for (const object of objects) if (object.metadata?.uid) this.deps.record.forget(object.metadata.uid);
    return (await deleteAll(this.deps.cluster, objects)).length;
  }

  /**
   * A deleted synchronized policy takes the data it generated with it, unless it orphans its
   * downstream; copies of clone sources stay (Kyverno deletes only what has no source).
   */
  async policyDeleted(policy: CompiledGeneratingPolicy, types: readonly DownstreamType[]): Promise<number> {
    if (!policy.synchronize || policy.orphanDownstreamOnPolicyDelete) return 0;
    const objects = (await this.find(policy, types)).filter((object) => !isClone(object));
    for (const object of objects) if (object.metadata?.uid) this.deps.record.forget(object.metadata.uid);
    return (await deleteAll(this.deps.cluster, objects)).length;
  }

  /**
   * A clone source changed: its copies made by a synchronized policy (`synchronized` says which
   * are) get its content again, under their own name, namespace and labels. A copy that already
   * has it is not written.
   */
  async sourceChanged(source: KubeObject, synchronized: (copy: KubeObject) => boolean): Promise<number> {
    let updated = 0;
    for (const copy of await this.copiesOf(source)) {
      if (!synchronized(copy)) continue;
      if (await this.copyInto(source, copy)) updated++;
    }
    return updated;
  }

  /** A clone source was deleted: its synchronized copies go with it. */
  async sourceDeleted(source: KubeObject, synchronized: (copy: KubeObject) => boolean): Promise<number> {
    const copies = (await this.copiesOf(source)).filter(synchronized);
    for (const copy of copies) if (copy.metadata?.uid) this.deps.record.forget(copy.metadata.uid);
    return (await deleteAll(this.deps.cluster, copies)).length;
  }

  /** `policy`'s downstream objects of the types (for one trigger when given). */
  async find(policy: GpolRef, types: readonly DownstreamType[], triggerUid?: string): Promise<KubeObject[]> {
    const found = await listAll(this.deps.cluster, types, gpolDownstreamSelector(policy, triggerUid));
    return found.filter((object) => ownedBy(object, policy));
  }

  private async copiesOf(source: KubeObject): Promise<KubeObject[]> {
    const uid = source.metadata?.uid;
    if (!uid || !source.apiVersion || !source.kind) return [];
    return listAll(this.deps.cluster, [{ apiVersion: source.apiVersion, kind: source.kind }], cloneSelector(uid));
  }

  private async copyInto(source: KubeObject, listed: KubeObject): Promise<boolean> {
    const { cluster, record } = this.deps;
    let copy: KubeObject | undefined = listed;
    for (let attempt = 1; copy; attempt++) {
      const next = copyOf(source, copy);
      if (contentDigest(next) === contentDigest(copy)) {
        record.record(copy);
        return false;
      }
      try {
        record.record(await cluster.replace(next));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
        copy = await cluster.get(objectRef(copy));
      }
    }
    return false;
  }
}

/**
 * The source's content under the copy's identity (Kyverno's update of a downstream from its
 * source): name, namespace, kind, apiVersion and labels of the copy, the rest of the source, minus
 * what the API server sets. The copy's resourceVersion makes the write conditional.
 */
function copyOf(source: KubeObject, copy: KubeObject): KubeObject {
  const { status: _status, ...content } = structuredClone(source) as KubeObject & { status?: unknown };
  const metadata = { ...content.metadata };
  for (const field of ['uid', 'selfLink', 'creationTimestamp', 'managedFields', 'resourceVersion', 'generation']) {
    delete (metadata as Record<string, unknown>)[field];
  }
  return {
    ...content,
    apiVersion: copy.apiVersion,
    kind: copy.kind,
    metadata: {
      ...metadata,
      name: copy.metadata?.name ?? '',
      ...(copy.metadata?.namespace ? { namespace: copy.metadata.namespace } : {}),
      labels: { ...copy.metadata?.labels },
      ...(copy.metadata?.resourceVersion ? { resourceVersion: copy.metadata.resourceVersion } : {}),
      ...(copy.metadata?.uid ? { uid: copy.metadata.uid } : {}),
    },
  };
}

function allTypes(types: readonly DownstreamType[], objects: readonly KubeObject[]): DownstreamType[] {
  const byKey = new Map<string, DownstreamType>();
  for (const type of types) byKey.set(`${type.apiVersion}/${type.kind}`, type);
  for (const object of objects) {
    if (object.apiVersion && object.kind) {
      byKey.set(`${object.apiVersion}/${object.kind}`, { apiVersion: object.apiVersion, kind: object.kind });
    }
  }
  return [...byKey.values()];
}
