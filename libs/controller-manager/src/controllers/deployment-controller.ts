/**
 * kube-controller-manager's Deployment controller: each Deployment gets a ReplicaSet per pod
 * template (`<name>-<pod-template-hash>`, revision-annotated), rolled out with the RollingUpdate
 * budgets or Recreate, scaled proportionally, old ReplicaSets pruned past `revisionHistoryLimit`,
 * and a status (counts, Available/Progressing/ReplicaFailure conditions, observed generation)
 * computed from its ReplicaSets. Pods are the ReplicaSet controller's business.
 */
import { deepEqual, errorMessage, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { ApiError, metadataOf, type ChangeEvent, type ClusterCache } from '@edict/apiserver';
import { conditionOf, conditionsOf, setCondition, withoutCondition } from './conditions';
import type { ControllerClient } from './controller-client';
import { claim, controllerOf, controllerRefTo, isDeleting, labelsOf, selects } from './controller-refs';
import {
  activeOrLatest,
  annotationsOf,
  availableReplicas,
  byCreation,
  byRevision,
  bySize,
  DESIRED_REPLICAS_ANNOTATION,
  deploymentStatus,
  equalIgnoringHash,
  findNewReplicaSet,
  fromReplicaSetCondition,
  HASH_LABEL,
  isActive,
  isComplete,
  isProgressing,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  NEW_RS_AVAILABLE,
  newCondition,
  newReplicaSetAnnotations,
  newReplicaSetReplicas,
  PAUSED,
  progressDeadlineSeconds,
  progressTimeLeft,
  PROGRESSING,
  proportion,
  REPLICA_FAILURE,
  replicasAnnotations,
  REVISION_ANNOTATION,
  revisionHistoryLimit,
  revisionOf,
  specReplicas,
  templateHash,
  TIMED_OUT,
  withAnnotations,
} from './deployment-util';
import { numberOr, replicasOf, specOf, statusOf } from './fields';
import { PODS, REPLICASETS } from './replicaset-controller';
import { keyOf, splitKey } from './queue-keys';
import { WorkQueue } from '@edict/work-queue';

export const DEPLOYMENTS = 'apps/deployments';
const WORKERS = 5;

export class DeploymentController {
  readonly queue = new WorkQueue((key) => this.sync(key), WORKERS);

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
  ) {}

  observe(event: ChangeEvent): void {
    if (event.groupResource === DEPLOYMENTS) {
      this.queue.add(keyOf(event.object));
    } else if (event.groupResource === REPLICASETS) {
      for (const replicaSet of [event.object, event.previous]) {
        const owner = replicaSet && this.controlling(replicaSet, DEPLOYMENTS, 'Deployment');
        if (owner) this.queue.add(keyOf(owner));
      }
      if (event.type !== 'DELETED' && !controllerOf(event.object)) {
        for (const deployment of this.store.list(DEPLOYMENTS, event.namespace)) {
          if (selects(specOf(deployment).selector, labelsOf(event.object))) this.queue.add(keyOf(deployment));
        }
      }
    } else if (event.groupResource === PODS && event.type === 'DELETED') {
      // Recreate waits for the old Pods to be gone.
      const replicaSet = this.controlling(event.object, REPLICASETS, 'ReplicaSet');
      const owner = replicaSet && this.controlling(replicaSet, DEPLOYMENTS, 'Deployment');
      if (owner && !isRollingUpdate(owner)) this.queue.add(keyOf(owner));
    }
  }

  resyncAll(): void {
    for (const deployment of this.store.list(DEPLOYMENTS)) this.queue.add(keyOf(deployment));
  }

  private controlling(object: JsonObject, groupResource: string, kind: string): JsonObject | undefined {
    const ref = controllerOf(object);
    if (!ref || ref.kind !== kind || ref.apiVersion !== 'apps/v1') return undefined;
    const owner = this.store.get(groupResource, String(metadataOf(object).namespace), String(ref.name));
    return owner && metadataOf(owner).uid === ref.uid ? owner : undefined;
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const deployment = this.store.get(DEPLOYMENTS, namespace, name);
    if (deployment) await new DeploymentSync(this.store, this.client, this.queue, key, deployment).run();
  }
}

interface ReplicaSets {
  readonly newRs: JsonObject | undefined;
  readonly old: JsonObject[];
}

/** One sync of one Deployment; `deployment` follows the controller's own writes. */
class DeploymentSync {
  private readonly now = new Date();

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
    private readonly queue: WorkQueue,
    private readonly key: string,
    private deployment: JsonObject,
  ) {}

  async run(): Promise<void> {
    const selector = specOf(this.deployment).selector;
    if (isObject(selector) && Object.keys(selector).length === 0) {
      await this.client.event(
        this.deployment,
        'Warning',
        'SelectingAll',
        'This deployment is selecting all pods. A non-empty selector is required.',
      );
      if (this.observedGeneration() < this.generation()) {
        await this.writeStatus({ ...statusOf(this.deployment), observedGeneration: this.generation() });
      }
      return;
    }
    const namespace = String(metadataOf(this.deployment).namespace);
    const replicaSets = await claim(this.client, this.deployment, this.store.list(REPLICASETS, namespace), (rs) =>
      selects(selector, labelsOf(rs)),
    );
    if (isDeleting(this.deployment)) {
      const { newRs, old } = await this.replicaSetsAndRevision(replicaSets, false);
      return this.syncStatus(withNew(old, newRs), newRs);
    }
    await this.checkPausedCondition();
    if (specOf(this.deployment).paused === true || (await this.isScalingEvent(replicaSets))) {
      return this.syncScale(replicaSets);
    }
    return isRollingUpdate(this.deployment) ? this.rolloutRolling(replicaSets) : this.rolloutRecreate(replicaSets);
  }

  // ReplicaSets and revisions

  /** The new ReplicaSet (created when asked and missing) and the old ones, with revisions in step. */
  private async replicaSetsAndRevision(all: JsonObject[], create: boolean): Promise<ReplicaSets> {
    const existing = findNewReplicaSet(this.deployment, all);
    const old = all.filter((rs) => rs !== existing);
    const revision = Math.max(0, ...old.map(revisionOf)) + 1;
    if (existing) return { newRs: await this.syncExistingNew(existing, revision), old };
    return { newRs: create ? await this.createNew(old, revision) : undefined, old };
  }

  private async syncExistingNew(existing: JsonObject, revision: number): Promise<JsonObject> {
    const annotations = newReplicaSetAnnotations(this.deployment, existing, revision, true);
    const minReadySeconds = numberOr(specOf(this.deployment).minReadySeconds, 0);
    if (
      !deepEqual(annotations, annotationsOf(existing)) ||
      numberOr(specOf(existing).minReadySeconds, 0) !== minReadySeconds
    ) {
      const spec = withOptional(specOf(existing), 'minReadySeconds', minReadySeconds);
      return this.client.update({ ...withAnnotations(existing, annotations), spec });
    }
    let changed = this.setRevision(annotationsOf(existing)[REVISION_ANNOTATION]);
    if (progressDeadlineSeconds(this.deployment) !== undefined && !conditionOf(this.deployment.status, PROGRESSING)) {
      const message = `Found new replica set ${quoted(existing)}`;
      this.setCondition(newCondition(PROGRESSING, 'True', 'FoundNewReplicaSet', message, this.now));
      changed = true;
    }
    if (changed) await this.writeStatus(statusOf(this.deployment));
    return existing;
  }

  private async createNew(old: JsonObject[], revision: number): Promise<JsonObject> {
    const meta = metadataOf(this.deployment);
    const spec = specOf(this.deployment);
    const status = statusOf(this.deployment);
    const collisionCount = typeof status.collisionCount === 'number' ? status.collisionCount : undefined;
    const template = isObject(spec.template) ? spec.template : {};
    const hash = templateHash(template, collisionCount);
    const templateMeta = isObject(template.metadata) ? template.metadata : {};
    const labels = { ...(isObject(templateMeta.labels) ? templateMeta.labels : {}), [HASH_LABEL]: hash };
    const selector = isObject(spec.selector) ? spec.selector : {};
    const matchLabels = { ...(isObject(selector.matchLabels) ? selector.matchLabels : {}), [HASH_LABEL]: hash };
    const draft: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${String(meta.name)}-${hash}`,
        namespace: meta.namespace ?? '',
        labels,
        ownerReferences: [controllerRefTo(this.deployment)],
      },
      spec: withOptional(
        {
          replicas: 0,
          selector: { ...selector, matchLabels },
          template: { ...template, metadata: { ...templateMeta, labels } },
        },
        'minReadySeconds',
        numberOr(spec.minReadySeconds, 0),
      ),
    };
    const replicas = newReplicaSetReplicas(this.deployment, [...old, draft], draft);
    const newRs = withAnnotations(
      { ...draft, spec: { ...specOf(draft), replicas } },
      newReplicaSetAnnotations(this.deployment, draft, revision, false),
    );
    const name = String(metadataOf(newRs).name);
    let created: JsonObject;
    let alreadyExisted = false;
    try {
      created = await this.client.create(newRs);
    } catch (error) {
      const existing = this.store.get(REPLICASETS, String(meta.namespace), name);
      const isOurs =
        existing &&
        controllerOf(existing)?.uid === meta.uid &&
        equalIgnoringHash(spec.template, specOf(existing).template);
      if (error instanceof ApiError && error.reason === 'AlreadyExists' && existing && isOurs) {
        created = existing;
        alreadyExisted = true;
      } else if (error instanceof ApiError && error.reason === 'AlreadyExists') {
        // A hash collision: the next attempt hashes with a higher collision count.
        await this.writeStatus({ ...status, collisionCount: (collisionCount ?? 0) + 1 });
        throw error;
      } else {
        const message = `Failed to create new replica set ${JSON.stringify(name)}: ${errorMessage(error)}`;
        if (progressDeadlineSeconds(this.deployment) !== undefined) {
          this.setCondition(newCondition(PROGRESSING, 'False', 'ReplicaSetCreateError', message, this.now));
          await this.writeStatus(statusOf(this.deployment)).catch(() => undefined);
        }
        await this.client.event(this.deployment, 'Warning', 'ReplicaSetCreateError', message);
        throw error;
      }
    }
    if (!alreadyExisted && replicas > 0) {
      await this.client.event(
        this.deployment,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${name} from 0 to ${replicas}`,
      );
    }
    let changed = this.setRevision(String(revision));
    if (!alreadyExisted && progressDeadlineSeconds(this.deployment) !== undefined) {
      const message = `Created new replica set ${JSON.stringify(name)}`;
      this.setCondition(newCondition(PROGRESSING, 'True', 'NewReplicaSetCreated', message, this.now));
      changed = true;
    }
    if (changed) await this.writeStatus(statusOf(this.deployment));
    return created;
  }

  /** Records the revision on the Deployment (written with its next status update). */
  private setRevision(revision: string | undefined): boolean {
    if (revision === undefined || annotationsOf(this.deployment)[REVISION_ANNOTATION] === revision) return false;
    this.deployment = withAnnotations(this.deployment, {
      ...annotationsOf(this.deployment),
      [REVISION_ANNOTATION]: revision,
    });
    return true;
  }

  // Scaling

  private async isScalingEvent(all: JsonObject[]): Promise<boolean> {
    const { newRs, old } = await this.replicaSetsAndRevision(all, false);
    return withNew(old, newRs)
      .filter(isActive)
      .some((rs) => {
        const desired = annotationsOf(rs)[DESIRED_REPLICAS_ANNOTATION];
        return desired !== undefined && /^\d+$/.test(desired) && Number(desired) !== replicasOf(this.deployment);
      });
  }

  /** A scaling event or a paused Deployment: scale, prune history when paused, update the status. */
  private async syncScale(all: JsonObject[]): Promise<void> {
    const { newRs, old } = await this.replicaSetsAndRevision(all, false);
    await this.scale(newRs, old);
    if (specOf(this.deployment).paused === true) await this.cleanup(old);
    await this.syncStatus(withNew(old, newRs), newRs);
  }

  private async scale(newRs: JsonObject | undefined, old: JsonObject[]): Promise<void> {
    const desired = replicasOf(this.deployment);
    const single = activeOrLatest(newRs, old);
    if (single) {
      if (replicasOf(single) !== desired) await this.scaleReplicaSet(single, desired);
      return;
    }
    if (isSaturated(this.deployment, newRs)) {
      for (const rs of old.filter(isActive)) await this.scaleReplicaSet(rs, 0);
      return;
    }
    if (!isRollingUpdate(this.deployment)) return;
    // Several active ReplicaSets: spread the change over them in proportion to their sizes.
    const active = withNew(old, newRs).filter(isActive);
    const allowed = desired > 0 ? desired + maxSurge(this.deployment) : 0;
    const toAdd = allowed - specReplicas(active);
    const operation = toAdd > 0 ? 'up' : 'down';
    if (toAdd !== 0) active.sort(bySize(toAdd > 0));
    let added = 0;
    const sizes = active.map((rs) => {
      if (toAdd === 0) return replicasOf(rs);
      const share = proportion(rs, this.deployment, toAdd, added);
      added += share;
      return replicasOf(rs) + share;
    });
    if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(sizes[0]! + toAdd - added, 0);
    for (const [index, rs] of active.entries()) await this.scaleReplicaSet(rs, sizes[index]!, operation);
  }

  /**
   * Sets a ReplicaSet's size and replica annotations; resolves with the ReplicaSet as stored. Without
   * an `operation` (kube's scale-and-record) a ReplicaSet already of that size is left as it is.
   */
  private async scaleReplicaSet(replicaSet: JsonObject, size: number, operation?: 'up' | 'down'): Promise<JsonObject> {
    const before = replicasOf(replicaSet);
    if (operation === undefined && before === size) return replicaSet;
    const wanted = replicasAnnotations(this.deployment);
    const annotations = annotationsOf(replicaSet);
    const annotationsStale = Object.entries(wanted).some(([key, value]) => annotations[key] !== value);
    if (before === size && !annotationsStale) return replicaSet;
    const updated = await this.client.update({
      ...withAnnotations(replicaSet, { ...annotations, ...wanted }),
      spec: { ...specOf(replicaSet), replicas: size },
    });
    if (before !== size) {
      const direction = operation ?? (before < size ? 'up' : 'down');
      await this.client.event(
        this.deployment,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${direction} replica set ${String(metadataOf(replicaSet).name)} from ${before} to ${size}`,
      );
    }
    return updated;
  }

  /** Deletes the oldest empty ReplicaSets beyond `revisionHistoryLimit`. */
  private async cleanup(old: JsonObject[]): Promise<void> {
    const limit = revisionHistoryLimit(this.deployment);
    if (limit === undefined) return;
    const alive = old.filter((rs) => !isDeleting(rs)).sort(byRevision);
    for (const rs of alive.slice(0, Math.max(alive.length - limit, 0))) {
      const status = statusOf(rs);
      const settled = numberOr(status.observedGeneration, 0) >= numberOr(metadataOf(rs).generation, 0);
      if (numberOr(status.replicas, 0) !== 0 || replicasOf(rs) !== 0 || !settled) continue;
      await this.client.delete(rs);
    }
  }

  // Rollouts

  private async rolloutRolling(all: JsonObject[]): Promise<void> {
    const { newRs, old } = await this.replicaSetsAndRevision(all, true);
    const current = withNew(old, newRs);
    if (
      (await this.reconcileNew(current, newRs!)) ||
      (await this.reconcileOld(current, old.filter(isActive), newRs!))
    ) {
      return this.syncRolloutStatus(current, newRs);
    }
    if (isComplete(this.deployment, statusOf(this.deployment))) await this.cleanup(old);
    return this.syncRolloutStatus(current, newRs);
  }

  private async reconcileNew(all: JsonObject[], newRs: JsonObject): Promise<boolean> {
    const desired = replicasOf(this.deployment);
    const size = replicasOf(newRs);
    if (size === desired) return false;
    const target = size > desired ? desired : newReplicaSetReplicas(this.deployment, all, newRs);
    if (target === size) return false;
    await this.scaleReplicaSet(newRs, target);
    return true;
  }

  /** Scales old ReplicaSets down within the availability budget, unhealthy replicas first. */
  private async reconcileOld(all: JsonObject[], oldActive: JsonObject[], newRs: JsonObject): Promise<boolean> {
    if (specReplicas(oldActive) === 0) return false;
    const minAvailable = replicasOf(this.deployment) - maxUnavailable(this.deployment);
    const newUnavailable = replicasOf(newRs) - numberOr(statusOf(newRs).availableReplicas, 0);
    const maxScaledDown = specReplicas(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    try {
      const sorted = [...oldActive].sort(byCreation);
      let cleaned = 0;
      for (const [index, rs] of sorted.entries()) {
        if (cleaned >= maxScaledDown) break;
        const unhealthy = replicasOf(rs) - numberOr(statusOf(rs).availableReplicas, 0);
        if (replicasOf(rs) === 0 || unhealthy <= 0) continue;
        const count = Math.min(maxScaledDown - cleaned, unhealthy);
        sorted[index] = await this.scaleReplicaSet(rs, replicasOf(rs) - count);
        cleaned += count;
      }
      const available = availableReplicas(withNew(sorted, newRs));
      let scaledDown = 0;
      if (available > minAvailable) {
        const budget = available - minAvailable;
        for (const rs of sorted) {
          if (scaledDown >= budget) break;
          if (replicasOf(rs) === 0) continue;
          const count = Math.min(replicasOf(rs), budget - scaledDown);
          await this.scaleReplicaSet(rs, replicasOf(rs) - count);
          scaledDown += count;
        }
      }
      return cleaned + scaledDown > 0;
    } catch {
      // kube's controller carries on to the status update when scaling down fails.
      return false;
    }
  }

  private async rolloutRecreate(all: JsonObject[]): Promise<void> {
    let { newRs, old } = await this.replicaSetsAndRevision(all, false);
    let current = withNew(old, newRs);
    let scaledDown = false;
    for (const rs of old.filter(isActive)) {
      if ((await this.scaleReplicaSet(rs, 0)) !== rs) scaledDown = true;
    }
    if (scaledDown || this.oldPodsRunning(newRs, old)) return this.syncRolloutStatus(current, newRs);
    if (!newRs) {
      ({ newRs, old } = await this.replicaSetsAndRevision(all, true));
      current = withNew(old, newRs);
    }
    await this.scaleReplicaSet(newRs!, replicasOf(this.deployment));
    if (isComplete(this.deployment, statusOf(this.deployment))) await this.cleanup(old);
    return this.syncRolloutStatus(current, newRs);
  }

  /** Whether old ReplicaSets still report Pods, or own Pods that have not finished. */
  private oldPodsRunning(newRs: JsonObject | undefined, old: JsonObject[]): boolean {
    if (old.some((rs) => numberOr(statusOf(rs).replicas, 0) > 0)) return true;
    const oldUids = new Set(old.map((rs) => metadataOf(rs).uid));
    const namespace = String(metadataOf(this.deployment).namespace);
    return this.store.list(PODS, namespace).some((pod) => {
      const owner = controllerOf(pod)?.uid;
      const phase = statusOf(pod).phase;
      return owner !== undefined && oldUids.has(owner) && phase !== 'Failed' && phase !== 'Succeeded';
    });
  }

  // Status

  private async checkPausedCondition(): Promise<void> {
    if (progressDeadlineSeconds(this.deployment) === undefined) return;
    const condition = conditionOf(this.deployment.status, PROGRESSING);
    if (condition?.reason === TIMED_OUT) return;
    const paused = specOf(this.deployment).paused === true;
    const pausedNoted = condition?.reason === PAUSED;
    if (paused === pausedNoted) return;
    this.setCondition(
      paused
        ? newCondition(PROGRESSING, 'Unknown', PAUSED, 'Deployment is paused', this.now)
        : newCondition(PROGRESSING, 'Unknown', 'DeploymentResumed', 'Deployment is resumed', this.now),
    );
    await this.writeStatus(statusOf(this.deployment));
  }

  private async syncStatus(all: JsonObject[], newRs: JsonObject | undefined): Promise<void> {
    const status = deploymentStatus(all, newRs, this.deployment, this.now);
    if (!deepEqual(status, statusOf(this.deployment))) await this.writeStatus(status);
  }

  /** The status during a rollout: also how it progresses (or timed out) and the ReplicaSets' failures. */
  private async syncRolloutStatus(all: JsonObject[], newRs: JsonObject | undefined): Promise<void> {
    const status = deploymentStatus(all, newRs, this.deployment, this.now);
    let conditions = conditionsOf(status);
    const deadline = progressDeadlineSeconds(this.deployment);
    if (deadline === undefined) conditions = withoutCondition(conditions, PROGRESSING);
    const current = conditionOf(this.deployment.status, PROGRESSING);
    const finished =
      numberOr(status.replicas, 0) === numberOr(status.updatedReplicas, 0) && current?.reason === NEW_RS_AVAILABLE;
    const subject = newRs ? `ReplicaSet ${quoted(newRs)}` : `Deployment ${quoted(this.deployment)}`;
    if (deadline !== undefined && !finished) {
      if (isComplete(this.deployment, status)) {
        const message = `${subject} has successfully progressed.`;
        conditions = setCondition(conditions, newCondition(PROGRESSING, 'True', NEW_RS_AVAILABLE, message, this.now));
      } else if (isProgressing(this.deployment, status)) {
        // Progress refreshes the update time even when the reason stays.
        const condition = newCondition(
          PROGRESSING,
          'True',
          'ReplicaSetUpdated',
          `${subject} is progressing.`,
          this.now,
        );
        if (current?.status === 'True' && current.lastTransitionTime !== undefined) {
          condition.lastTransitionTime = current.lastTransitionTime;
        }
        conditions = [...withoutCondition(conditions, PROGRESSING), condition];
      } else if (this.timedOut({ ...status, conditions })) {
        const message = `${subject} has timed out progressing.`;
        conditions = setCondition(conditions, newCondition(PROGRESSING, 'False', TIMED_OUT, message, this.now));
      }
    }
    const failure = replicaFailure(all, newRs);
    conditions = failure ? setCondition(conditions, failure) : withoutCondition(conditions, REPLICA_FAILURE);
    const next = withOptional(status, 'conditions', conditions);
    if (deepEqual(next, statusOf(this.deployment))) {
      this.requeueForProgressCheck(next);
      return;
    }
    await this.writeStatus(next);
  }

  private timedOut(status: JsonObject): boolean {
    if (conditionOf(status, PROGRESSING)?.reason === TIMED_OUT) return true;
    const left = progressTimeLeft(this.deployment, status, this.now);
    return left !== undefined && left < 0;
  }

  /** A stuck rollout is looked at again when its progress deadline passes. */
  private requeueForProgressCheck(status: JsonObject): void {
    if (isComplete(this.deployment, status)) return;
    const left = progressTimeLeft(this.deployment, statusOf(this.deployment), this.now);
    if (left === undefined) return;
    this.queue.addAfter(this.key, left < 1000 ? 5 : left + 1000);
  }

  private setCondition(condition: JsonObject): void {
    const status = statusOf(this.deployment);
    this.deployment = {
      ...this.deployment,
      status: { ...status, conditions: setCondition(conditionsOf(status), condition) },
    };
  }

  private async writeStatus(status: JsonObject): Promise<void> {
    this.deployment = await this.client.update({ ...this.deployment, status }, 'status');
  }

  private generation(): number {
    return numberOr(metadataOf(this.deployment).generation, 0);
  }

  private observedGeneration(): number {
    return numberOr(statusOf(this.deployment).observedGeneration, 0);
  }
}

/** The new ReplicaSet's ReplicaFailure condition, or else an old one's, in a Deployment's shape. */
function replicaFailure(all: JsonObject[], newRs: JsonObject | undefined): JsonObject | undefined {
  const failing = [...(newRs ? [newRs] : []), ...all]
    .map((rs) => conditionOf(rs.status, REPLICA_FAILURE))
    .find(Boolean);
  return failing ? fromReplicaSetCondition(failing) : undefined;
}

function withNew(old: JsonObject[], newRs: JsonObject | undefined): JsonObject[] {
  return newRs ? [...old, newRs] : [...old];
}

/** Sets `field` unless the value is Go's omitted zero (0 or an empty list), which removes it. */
function withOptional(object: JsonObject, field: string, value: JsonValue): JsonObject {
  const { [field]: _old, ...rest } = object;
  const empty = value === 0 || (Array.isArray(value) && value.length === 0);
  return empty ? rest : { ...rest, [field]: value };
}

function quoted(object: JsonObject): string {
  return JSON.stringify(String(metadataOf(object).name));
}
