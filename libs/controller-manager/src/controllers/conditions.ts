/** Status conditions as kube's workload controllers keep them: one per type, transition time kept while the status holds. */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export function conditionsOf(status: JsonValue | undefined): JsonObject[] {
  return isObject(status) && Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

export function conditionOf(status: JsonValue | undefined, type: string): JsonObject | undefined {
  return conditionsOf(status).find((condition) => condition.type === type);
}

/**
 * Sets `condition` in place of its type's: nothing changes when status and reason are the same;
 * with only the reason changed, the previous transition time stays. The new one goes last.
 */
export function setCondition(conditions: readonly JsonObject[], condition: JsonObject): JsonObject[] {
  const current = conditions.find((existing) => existing.type === condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return [...conditions];
  const updated =
    current && current.status === condition.status && current.lastTransitionTime !== undefined
      ? { ...condition, lastTransitionTime: current.lastTransitionTime }
      : condition;
  return [...withoutCondition(conditions, String(condition.type)), updated];
}

export function withoutCondition(conditions: readonly JsonObject[], type: string): JsonObject[] {
  return conditions.filter((condition) => condition.type !== type);
}
