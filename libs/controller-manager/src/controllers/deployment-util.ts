/**
 * The arithmetic of kube's Deployment controller, without I/O: surge and unavailability budgets,
 * how far the new ReplicaSet may grow, proportional scaling, the pod-template-hash, revision and
 * replica annotations, and the status and conditions computed from the ReplicaSets.
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { metadataOf, timestamp } from '@edict/apiserver';
import { conditionOf, conditionsOf, setCondition } from './conditions';
import { numberOr, omitZero, replicasOf, specOf, statusOf } from './fields';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Deployment annotations that are not copied to its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);
const MAX_REVISION_HISTORY_CHARS = 2000;
const DEFAULT_BUDGET = '25%';
const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
const DEFAULT_REVISION_HISTORY_LIMIT = 10;

export const PROGRESSING = 'Progressing';
const AVAILABLE = 'Available';
export const REPLICA_FAILURE = 'ReplicaFailure';
export const NEW_RS_AVAILABLE = 'NewReplicaSetAvailable';
export const TIMED_OUT = 'ProgressDeadlineExceeded';
export const PAUSED = 'DeploymentPaused';

// Budgets

export function isRollingUpdate(deployment: JsonObject): boolean {
  const strategy = specOf(deployment).strategy;
  return !(isObject(strategy) && strategy.type === 'Recreate');
}

/** maxSurge rounds up, maxUnavailable down; both zero would deadlock, so unavailability becomes 1. */
function fenceposts(deployment: JsonObject): { surge: number; unavailable: number } {
  const strategy = specOf(deployment).strategy;
  const rolling = isObject(strategy) && isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const desired = replicasOf(deployment);
  const surge = scaled(rolling.maxSurge ?? DEFAULT_BUDGET, desired, true);
  const unavailable = scaled(rolling.maxUnavailable ?? DEFAULT_BUDGET, desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

function scaled(value: JsonValue, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(String(value));
  if (!percent) return 0;
  const exact = (Number(percent[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export function maxSurge(deployment: JsonObject): number {
  return isRollingUpdate(deployment) ? fenceposts(deployment).surge : 0;
}

export function maxUnavailable(deployment: JsonObject): number {
  const desired = replicasOf(deployment);
  if (!isRollingUpdate(deployment) || desired === 0) return 0;
  return Math.min(fenceposts(deployment).unavailable, desired);
}

export function progressDeadlineSeconds(deployment: JsonObject): number | undefined {
  const value = specOf(deployment).progressDeadlineSeconds;
  if (value === undefined) return DEFAULT_PROGRESS_DEADLINE_SECONDS;
  // MaxInt32 means "no deadline", as kube reads it.
  return typeof value === 'number' && value < 2 ** 31 - 1 ? value : undefined;
}

export function revisionHistoryLimit(deployment: JsonObject): number | undefined {
  const value = specOf(deployment).revisionHistoryLimit;
  if (value === undefined) return DEFAULT_REVISION_HISTORY_LIMIT;
  return typeof value === 'number' ? value : undefined;
}

// ReplicaSet counts

/** Desired replicas of the ReplicaSets (`spec.replicas`). */
export function specReplicas(replicaSets: readonly JsonObject[]): number {
  return replicaSets.reduce((sum, rs) => sum + replicasOf(rs), 0);
}

function statusCount(replicaSets: readonly JsonObject[], field: string): number {
  return replicaSets.reduce((sum, rs) => sum + numberOr(statusOf(rs)[field], 0), 0);
}

export function availableReplicas(replicaSets: readonly JsonObject[]): number {
  return statusCount(replicaSets, 'availableReplicas');
}

export function isActive(replicaSet: JsonObject): boolean {
  return replicasOf(replicaSet) > 0;
}

/** How many replicas the new ReplicaSet may have now (rolling: within the surge budget). */
export function newReplicaSetReplicas(deployment: JsonObject, all: readonly JsonObject[], newRs: JsonObject): number {
  const desired = replicasOf(deployment);
  if (!isRollingUpdate(deployment)) return desired;
  const current = specReplicas(all);
  const ceiling = desired + maxSurge(deployment);
  if (current >= ceiling) return replicasOf(newRs);
  return replicasOf(newRs) + Math.min(ceiling - current, desired - replicasOf(newRs));
}

export function isSaturated(deployment: JsonObject, replicaSet: JsonObject | undefined): boolean {
  if (!replicaSet) return false;
  const desired = replicasOf(deployment);
  const annotated = annotationsOf(replicaSet)[DESIRED_REPLICAS_ANNOTATION];
  return (
    replicasOf(replicaSet) === desired &&
    annotated === String(desired) &&
    numberOr(statusOf(replicaSet).availableReplicas, 0) === desired
  );
}

/** The one active ReplicaSet, the newest when none is active, or none when several are. */
export function activeOrLatest(newRs: JsonObject | undefined, old: readonly JsonObject[]): JsonObject | undefined {
  const sortedOld = [...old].sort(byCreation);
  const active = [...sortedOld, ...(newRs ? [newRs] : [])].filter(isActive);
  if (active.length === 0) return newRs ?? sortedOld[sortedOld.length - 1];
  return active.length === 1 ? active[0] : undefined;
}

/** This ReplicaSet's share of `toAdd` replicas in proportional scaling. */
export function proportion(replicaSet: JsonObject, deployment: JsonObject, toAdd: number, added: number): number {
  if (replicasOf(replicaSet) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(replicaSet, deployment);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(replicaSet: JsonObject, deployment: JsonObject): number {
  const own = replicasOf(replicaSet);
  if (replicasOf(deployment) === 0) return -own;
  const target = replicasOf(deployment) + maxSurge(deployment);
  const annotated = Number(annotationsOf(replicaSet)[MAX_REPLICAS_ANNOTATION]);
  const base = Number.isInteger(annotated) ? annotated : numberOr(statusOf(deployment).replicas, 0);
  return Math.round((own * target) / base) - own;
}

// Ordering

export function byCreation(a: JsonObject, b: JsonObject): number {
  const created = (o: JsonObject) => String(metadataOf(o).creationTimestamp ?? '');
  return created(a).localeCompare(created(b)) || String(metadataOf(a).name).localeCompare(String(metadataOf(b).name));
}

/** Larger first; among equals newer first (scaling up) or older first (scaling down). */
export function bySize(newerFirst: boolean): (a: JsonObject, b: JsonObject) => number {
  return (a, b) => replicasOf(b) - replicasOf(a) || (newerFirst ? byCreation(b, a) : byCreation(a, b));
}

export function byRevision(a: JsonObject, b: JsonObject): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

// Templates and revisions

/** kube's pod-template-hash: FNV-1a of the template (and collision count), in its safe alphabet. */
export function templateHash(template: JsonValue | undefined, collisionCount: number | undefined): string {
  let hash = 0x811c9dc5;
  const bytes = [...Buffer.from(canonicalJson(template ?? {}))];
  if (collisionCount !== undefined) {
    const count = Buffer.alloc(4);
    count.writeUInt32LE(collisionCount >>> 0);
    bytes.push(...count);
  }
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(hash)].map((digit) => alphabet[digit.charCodeAt(0) % alphabet.length]).join('');
}

function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Templates equal apart from the hash label (empty and absent parts count as the same). */
export function equalIgnoringHash(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return deepEqual(pruned(withoutHashLabel(a)), pruned(withoutHashLabel(b)));
}

function withoutHashLabel(template: JsonValue | undefined): JsonValue {
  if (!isObject(template) || !isObject(template.metadata) || !isObject(template.metadata.labels)) return template ?? {};
  const { [HASH_LABEL]: _hash, ...labels } = template.metadata.labels;
  return { ...template, metadata: { ...template.metadata, labels } };
}

function pruned(value: JsonValue): JsonValue | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((item) => pruned(item) ?? null);
  if (!isObject(value)) return value;
  const entries = Object.entries(value)
    .map(([key, item]) => [key, pruned(item)] as const)
    .filter((entry): entry is readonly [string, JsonValue] => entry[1] !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** The ReplicaSet running the Deployment's current template (the oldest if several do). */
export function findNewReplicaSet(deployment: JsonObject, replicaSets: readonly JsonObject[]): JsonObject | undefined {
  const template = specOf(deployment).template;
  return [...replicaSets].sort(byCreation).find((rs) => equalIgnoringHash(specOf(rs).template, template));
}

export function revisionOf(replicaSet: JsonObject): number {
  const value = Number(annotationsOf(replicaSet)[REVISION_ANNOTATION]);
  return Number.isInteger(value) ? value : 0;
}

export function annotationsOf(object: JsonObject): Record<string, string> {
  const annotations = metadataOf(object).annotations;
  return isObject(annotations) ? (annotations as Record<string, string>) : {};
}

export function withAnnotations(object: JsonObject, annotations: Record<string, string>): JsonObject {
  return { ...object, metadata: { ...metadataOf(object), annotations } };
}

/** The desired/max replica annotations a ReplicaSet carries for proportional scaling. */
export function replicasAnnotations(deployment: JsonObject): Record<string, string> {
  const desired = replicasOf(deployment);
  return {
    [DESIRED_REPLICAS_ANNOTATION]: String(desired),
    [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge(deployment)),
  };
}

/**
 * The new ReplicaSet's annotations: the Deployment's (but its own bookkeeping ones), the revision
 * (bumped ones remember the old in the revision history) and, on creation, the replica annotations.
 */
export function newReplicaSetAnnotations(
  deployment: JsonObject,
  replicaSet: JsonObject,
  revision: number,
  exists: boolean,
): Record<string, string> {
  const annotations = { ...annotationsOf(replicaSet) };
  for (const [key, value] of Object.entries(annotationsOf(deployment))) {
    if (!NOT_COPIED.has(key)) annotations[key] = value;
  }
  const previous = annotations[REVISION_ANNOTATION];
  const previousNumber = previous === undefined ? 0 : Number(previous);
  if (!Number.isInteger(previousNumber)) return annotationsOf(replicaSet);
  if (previousNumber < revision) {
    annotations[REVISION_ANNOTATION] = String(revision);
    if (previous !== undefined) {
      const history = [...(annotations[REVISION_HISTORY_ANNOTATION] ?? '').split(',').filter(Boolean), previous];
      while (history.join(',').length > MAX_REVISION_HISTORY_CHARS) history.shift();
      annotations[REVISION_HISTORY_ANNOTATION] = history.join(',');
    }
  }
  return exists ? annotations : { ...annotations, ...replicasAnnotations(deployment) };
}

// Status

export function newCondition(type: string, status: string, reason: string, message: string, now: Date): JsonObject {
  const time = timestamp(now);
  return { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message };
}

/** A ReplicaSet condition in a Deployment's shape (its transition time also as update time). */
export function fromReplicaSetCondition(condition: JsonObject): JsonObject {
  const { type, status, lastTransitionTime, reason, message } = condition;
  return omitUndefined({ type, status, lastUpdateTime: lastTransitionTime, lastTransitionTime, reason, message });
}

function omitUndefined(object: Record<string, JsonValue | undefined>): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as JsonObject;
}

/** The counts and the Available condition, from the ReplicaSets' own status. */
export function deploymentStatus(
  all: readonly JsonObject[],
  newRs: JsonObject | undefined,
  deployment: JsonObject,
  now: Date,
): JsonObject {
  const available = availableReplicas(all);
  const unavailable = Math.max(specReplicas(all) - available, 0);
  const previous = statusOf(deployment);
  const minimum = replicasOf(deployment) - maxUnavailable(deployment);
  const condition =
    available >= minimum
      ? newCondition(AVAILABLE, 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now)
      : newCondition(
          AVAILABLE,
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
          now,
        );
  return omitZero({
    observedGeneration: numberOr(metadataOf(deployment).generation, 0),
    replicas: statusCount(all, 'replicas'),
    updatedReplicas: newRs ? statusCount([newRs], 'replicas') : 0,
    readyReplicas: statusCount(all, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    conditions: setCondition(conditionsOf(previous), condition),
    ...(previous.collisionCount !== undefined ? { collisionCount: previous.collisionCount } : {}),
  });
}

export function isComplete(deployment: JsonObject, status: JsonObject): boolean {
  const desired = replicasOf(deployment);
  return (
    numberOr(status.updatedReplicas, 0) === desired &&
    numberOr(status.replicas, 0) === desired &&
    numberOr(status.availableReplicas, 0) === desired &&
    numberOr(status.observedGeneration, 0) >= numberOr(metadataOf(deployment).generation, 0)
  );
}

/** Whether the new status shows progress over the Deployment's current one. */
export function isProgressing(deployment: JsonObject, status: JsonObject): boolean {
  const before = statusOf(deployment);
  const count = (s: JsonObject, field: string) => numberOr(s[field], 0);
  const oldReplicas = (s: JsonObject) => count(s, 'replicas') - count(s, 'updatedReplicas');
  return (
    count(status, 'updatedReplicas') > count(before, 'updatedReplicas') ||
    oldReplicas(status) < oldReplicas(before) ||
    count(status, 'readyReplicas') > count(before, 'readyReplicas') ||
    count(status, 'availableReplicas') > count(before, 'availableReplicas')
  );
}

/** Milliseconds left before the Progressing condition's deadline passes (negative once it has). */
export function progressTimeLeft(deployment: JsonObject, status: JsonObject, now: Date): number | undefined {
  const deadline = progressDeadlineSeconds(deployment);
  const condition = conditionOf(status, PROGRESSING);
  if (deadline === undefined || !condition) return undefined;
  if (condition.reason === NEW_RS_AVAILABLE || condition.reason === TIMED_OUT) return undefined;
  const updated = Date.parse(String(condition.lastUpdateTime ?? ''));
  return Number.isFinite(updated) ? updated + deadline * 1000 - now.getTime() : undefined;
}
