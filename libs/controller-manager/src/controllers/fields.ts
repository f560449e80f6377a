/** Reading workload objects the way Go's typed structs see them: absent parts are empty, zero counts are omitted. */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export function specOf(object: JsonObject): JsonObject {
  return isObject(object.spec) ? object.spec : {};
}

export function statusOf(object: JsonObject): JsonObject {
  return isObject(object.status) ? object.status : {};
}

export function numberOr(value: JsonValue | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** `spec.replicas`, defaulted to 1 as kube defaults it. */
export function replicasOf(object: JsonObject): number {
  return numberOr(specOf(object).replicas, 1);
}

/** Drops zero counts and empty lists (Go's omitempty), except the fields named in `kept`. */
export function omitZero(status: JsonObject, kept: readonly string[] = []): JsonObject {
  return Object.fromEntries(
    Object.entries(status).filter(
      ([key, value]) => kept.includes(key) || !(value === 0 || (Array.isArray(value) && value.length === 0)),
    ),
  );
}
