/** What controllers read from a Pod: whether it counts, is ready, and has been ready long enough to be available. */
import type { JsonObject } from '@edict/foundation';
import { metadataOf } from '@edict/apiserver';
import { conditionOf } from './conditions';

/** Pods that count towards replicas: not finished and not being deleted. */
export function isActivePod(pod: JsonObject): boolean {
  const phase = (pod.status as JsonObject | undefined)?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && metadataOf(pod).deletionTimestamp === undefined;
}

export function isPodReady(pod: JsonObject): boolean {
  return conditionOf(pod.status, 'Ready')?.status === 'True';
}

/** Ready for at least `minReadySeconds` (by the Ready condition's transition time). */
export function isPodAvailable(pod: JsonObject, minReadySeconds: number, now: number): boolean {
  const ready = conditionOf(pod.status, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  const since = Date.parse(String(ready.lastTransitionTime ?? ''));
  return Number.isFinite(since) && since + minReadySeconds * 1000 < now;
}
