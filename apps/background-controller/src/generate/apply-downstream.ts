/**
 * Writes what a generate rule wants to exist, as Kyverno's generator does: a missing object is
 * created; an existing one is left alone unless the rule synchronizes, then it is updated when it
 * differs. Safe to run twice or from two leaders at once: a create that finds the object already
 * there (409) is treated as "exists", and an update that lost a race (409) reads again and retries.
 */
import { isAlreadyExists, isConflict } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { objectRef, type ClusterObjects, type ObjectRef } from '../update-requests/cluster-objects';

/** Attempts of one update against concurrent writers before giving up (the request is retried later). */
const CONFLICT_ATTEMPTS = 5;

export interface DownstreamOutcome {
  /** Objects this call created (Kyverno lists only these in `status.generatedResources`). */
  readonly created: KubeObject[];
  /** Existing objects brought back in line with the rule (synchronize). */
  readonly updated: KubeObject[];
}

export async function applyDownstream(
  objects: readonly KubeObject[],
  synchronize: boolean,
  cluster: ClusterObjects,
  serverSideApply = false,
): Promise<DownstreamOutcome> {
  const created: KubeObject[] = [];
  const updated: KubeObject[] = [];
  for (const desired of objects) {
    const ref = objectRef(desired);
    let existing = await cluster.get(ref);
    if (!existing) {
      try {
        created.push(await cluster.create(withoutResourceVersion(desired)));
        continue;
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        existing = await cluster.get(ref);
        if (!existing) throw error;
      }
    }
    if (!synchronize) continue;
    const written = await updateUntilSettled(desired, existing, ref, cluster, serverSideApply);
    if (written) updated.push(written);
  }
  return { created, updated };
}

/** Updates `existing` to `desired` unless it already holds it; undefined when nothing was written. */
async function updateUntilSettled(
  desired: KubeObject,
  existing: KubeObject,
  ref: ObjectRef,
  cluster: ClusterObjects,
  serverSideApply: boolean,
): Promise<KubeObject | undefined> {
  let current: KubeObject | undefined = existing;
  for (let attempt = 1; ; attempt++) {
    if (!current) return cluster.create(withoutResourceVersion(desired));
    if (contains(current, desired)) return undefined;
    try {
      // Server-side apply (`useServerSideApply`) sets the rule's fields and keeps fields others set.
      const next = serverSideApply ? (mergeInto(current, desired) as KubeObject) : desired;
      const { resourceVersion: _desired, ...kept } = next.metadata;
      const resourceVersion = current.metadata.resourceVersion;
      return await cluster.replace({ ...next, metadata: resourceVersion ? { ...kept, resourceVersion } : kept });
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
      current = await cluster.get(ref);
    }
  }
}

function withoutResourceVersion(object: KubeObject): KubeObject {
  if (object.metadata?.resourceVersion === undefined) return object;
  const { resourceVersion: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** `fields` over `base`: objects merged key by key, anything else (lists too) replaced. */
function mergeInto(base: unknown, fields: unknown): unknown {
  const isMap = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isMap(base) || !isMap(fields)) return fields;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(fields)) out[key] = mergeInto(base[key], value);
  return out;
}

/** Whether every field of `wanted` is in `actual` with the same value (arrays compared whole). */
export function contains(actual: unknown, wanted: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object') return actual === wanted;
  if (Array.isArray(wanted)) {
    return (
      Array.isArray(actual) &&
      actual.length === wanted.length &&
      wanted.every((item, index) => contains(actual[index], item))
    );
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const fields = actual as Record<string, unknown>;
  return Object.entries(wanted).every(([key, value]) => contains(fields[key], value));
}
