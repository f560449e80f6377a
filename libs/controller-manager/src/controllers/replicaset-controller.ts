/**
 * kube-controller-manager's ReplicaSet controller: keeps `spec.replicas` active Pods of the
 * ReplicaSet's template (created in slow-start batches through the API, so admission applies and a
 * denied Pod is simply not there; surplus Pods deleted unscheduled/pending/not-ready first), claims
 * Pods by selector, and reports replicas, fully labeled, ready and available counts, the observed
 * generation and a ReplicaFailure condition while creating or deleting fails.
 */
import { deepEqual, errorMessage, isObject, type JsonObject } from '@edict/foundation';
import { ApiError, metadataOf, timestamp, type ChangeEvent, type ClusterCache } from '@edict/apiserver';
import { conditionsOf, setCondition, withoutCondition } from './conditions';
import type { ControllerClient } from './controller-client';
import { claim, controllerOf, controllerRefTo, isDeleting, labelsOf, selects } from './controller-refs';
import { numberOr, omitZero, replicasOf, specOf, statusOf } from './fields';
import { isActivePod, isPodAvailable, isPodReady } from './pod-status';
import { keyOf, splitKey } from './queue-keys';
import { WorkQueue } from '@edict/work-queue';

export const REPLICASETS = 'apps/replicasets';
export const PODS = '/pods';
/** kube's `burstReplicas`: the most Pods one sync creates or deletes. */
const BURST_REPLICAS = 500;
const WORKERS = 5;
const REPLICA_FAILURE = 'ReplicaFailure';

export class ReplicaSetController {
  readonly queue = new WorkQueue((key) => this.sync(key), WORKERS);

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
  ) {}

  observe(event: ChangeEvent): void {
    if (event.groupResource === REPLICASETS) {
      this.queue.add(keyOf(event.object));
    } else if (event.groupResource === PODS) {
      for (const pod of [event.object, event.previous]) {
        const owner = pod && this.controllingReplicaSet(pod);
        if (owner) this.queue.add(keyOf(owner));
      }
      // An orphan may be adopted by any ReplicaSet selecting it.
      if (event.type !== 'DELETED' && !controllerOf(event.object)) {
        for (const replicaSet of this.store.list(REPLICASETS, event.namespace)) {
          if (selects(specOf(replicaSet).selector, labelsOf(event.object))) this.queue.add(keyOf(replicaSet));
        }
      }
    }
  }

  resyncAll(): void {
    for (const replicaSet of this.store.list(REPLICASETS)) this.queue.add(keyOf(replicaSet));
  }

  private controllingReplicaSet(pod: JsonObject): JsonObject | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet' || ref.apiVersion !== 'apps/v1') return undefined;
    const replicaSet = this.store.get(REPLICASETS, String(metadataOf(pod).namespace), String(ref.name));
    return replicaSet && metadataOf(replicaSet).uid === ref.uid ? replicaSet : undefined;
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const replicaSet = this.store.get(REPLICASETS, namespace, name);
    if (!replicaSet) return;
    const selector = specOf(replicaSet).selector;
    const active = this.store.list(PODS, namespace).filter(isActivePod);
    const pods = await claim(this.client, replicaSet, active, (pod) => selects(selector, labelsOf(pod)));
    let failure: unknown;
    if (!isDeleting(replicaSet)) {
      try {
        await this.manageReplicas(replicaSet, pods);
      } catch (error) {
        failure = error;
      }
    }
    const status = await this.updateStatus(replicaSet, pods, failure);
    if (failure !== undefined) throw failure;
    const minReadySeconds = numberOr(specOf(replicaSet).minReadySeconds, 0);
    const replicas = replicasOf(replicaSet);
    if (minReadySeconds > 0 && status.readyReplicas === replicas && status.availableReplicas !== replicas) {
      this.queue.addAfter(key, minReadySeconds * 1000);
    }
  }

  private async manageReplicas(replicaSet: JsonObject, pods: JsonObject[]): Promise<void> {
    const diff = pods.length - replicasOf(replicaSet);
    if (diff < 0) {
      await slowStartBatch(Math.min(-diff, BURST_REPLICAS), () => this.createPod(replicaSet));
    } else if (diff > 0) {
      const victims = [...pods].sort(deletionOrder).slice(0, Math.min(diff, BURST_REPLICAS));
      const results = await Promise.allSettled(victims.map((pod) => this.deletePod(replicaSet, pod)));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  private async createPod(replicaSet: JsonObject): Promise<void> {
    const pod = podFromTemplate(replicaSet);
    try {
      if (Object.keys(labelsOf(pod)).length === 0) throw new Error('unable to create pods, no labels');
      const created = await this.client.create(pod);
      await this.client.event(replicaSet, 'Normal', 'SuccessfulCreate', `Created pod: ${nameOf(created)}`);
    } catch (error) {
      await this.client.event(replicaSet, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(error)}`);
      throw error;
    }
  }

  private async deletePod(replicaSet: JsonObject, pod: JsonObject): Promise<void> {
    try {
      await this.client.delete(pod);
      await this.client.event(replicaSet, 'Normal', 'SuccessfulDelete', `Deleted pod: ${nameOf(pod)}`);
    } catch (error) {
      await this.client.event(replicaSet, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(error)}`);
      throw error;
    }
  }

  /** Writes the status when it changed (a conflict means the ReplicaSet moved on: it is queued again). */
  private async updateStatus(replicaSet: JsonObject, pods: JsonObject[], failure: unknown): Promise<JsonObject> {
    const status = replicaSetStatus(replicaSet, pods, failure);
    const current = statusOf(replicaSet);
    const { observedGeneration: _o, ...rest } = status;
    const { observedGeneration: observed, ...currentRest } = current;
    if (deepEqual(rest, currentRest) && numberOr(observed, 0) >= numberOr(metadataOf(replicaSet).generation, 0)) {
      return current;
    }
    try {
      await this.client.update({ ...replicaSet, status }, 'status');
    } catch (error) {
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
    return status;
  }
}

/** The status kube's ReplicaSet controller computes (zero counts are omitted, as Go serializes them). */
function replicaSetStatus(replicaSet: JsonObject, pods: JsonObject[], failure: unknown): JsonObject {
  const spec = specOf(replicaSet);
  const template = isObject(spec.template) ? spec.template : {};
  const templateLabels = isObject(template.metadata) ? labelsOf(template as JsonObject) : {};
  const minReadySeconds = numberOr(spec.minReadySeconds, 0);
  const now = Date.now();
  const labeled = pods.filter((pod) => {
    const labels = labelsOf(pod);
    return Object.entries(templateLabels).every(([key, value]) => labels[key] === value);
  }).length;
  const ready = pods.filter(isPodReady);
  const available = ready.filter((pod) => isPodAvailable(pod, minReadySeconds, now)).length;
  const previous = statusOf(replicaSet);
  let conditions = conditionsOf(previous);
  const hasFailure = conditions.some((condition) => condition.type === REPLICA_FAILURE);
  if (failure !== undefined && !hasFailure) {
    const reason = pods.length < replicasOf(replicaSet) ? 'FailedCreate' : 'FailedDelete';
    conditions = setCondition(conditions, {
      type: REPLICA_FAILURE,
      status: 'True',
      lastTransitionTime: timestamp(new Date(now)),
      reason,
      message: errorMessage(failure),
    });
  } else if (failure === undefined && hasFailure) {
    conditions = withoutCondition(conditions, REPLICA_FAILURE);
  }
  const { conditions: _c, ...kept } = previous;
  return omitZero(
    {
      ...kept,
      replicas: pods.length,
      fullyLabeledReplicas: labeled,
      readyReplicas: ready.length,
      availableReplicas: available,
      observedGeneration: numberOr(metadataOf(replicaSet).generation, 0),
      conditions,
    },
    ['replicas'],
  );
}

/** A Pod from the template, as kube's pod control builds it: template labels, annotations and finalizers, the controller reference. */
function podFromTemplate(owner: JsonObject): JsonObject {
  const ownerMeta = metadataOf(owner);
  const template = isObject(specOf(owner).template) ? (specOf(owner).template as JsonObject) : {};
  const templateMeta = isObject(template.metadata) ? template.metadata : {};
  const metadata: JsonObject = { generateName: `${String(ownerMeta.name)}-`, namespace: ownerMeta.namespace ?? '' };
  for (const field of ['labels', 'annotations', 'finalizers']) {
    if (templateMeta[field] !== undefined) metadata[field] = templateMeta[field]!;
  }
  metadata.ownerReferences = [controllerRefTo(owner)];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: isObject(template.spec) ? template.spec : {} };
}

/** Creates `count` items in batches of 1, 2, 4...; the first failing batch ends it with its error. */
async function slowStartBatch(count: number, create: () => Promise<void>): Promise<void> {
  let remaining = count;
  for (let size = Math.min(remaining, 1); size > 0; size = Math.min(2 * size, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: size }, create));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    remaining -= size;
  }
}

const PHASE_ORDER: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** Which surplus Pods go first: unscheduled, then earlier phases, not ready, lower deletion cost, newer. */
function deletionOrder(a: JsonObject, b: JsonObject): number {
  const nodeA = String(specOf(a).nodeName ?? '');
  const nodeB = String(specOf(b).nodeName ?? '');
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phase = (pod: JsonObject) => PHASE_ORDER[String(statusOf(pod).phase)] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  const cost = (pod: JsonObject) => {
    const annotations = metadataOf(pod).annotations;
    const value = isObject(annotations) ? Number(annotations['controller.kubernetes.io/pod-deletion-cost']) : NaN;
    return Number.isFinite(value) ? value : 0;
  };
  if (cost(a) !== cost(b)) return cost(a) - cost(b);
  const created = (pod: JsonObject) => String(metadataOf(pod).creationTimestamp ?? '');
  return created(b).localeCompare(created(a));
}

function nameOf(object: JsonObject): string {
  return String(metadataOf(object).name);
}
