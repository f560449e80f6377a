import { isObject, type JsonValue } from '@edict/foundation';
import type { Policy } from '../policy';

/** What the policy webhook knows of a GlobalContextEntry: whether it exists and is ready. */
export type GlobalContextEntryLookup = (name: string) => Promise<{ ready: boolean } | undefined>;

/**
 * Kyverno's admission warning for `globalReference` context entries: a reference without a name, or
 * naming an entry that does not exist or is not ready (the whole name is compared, projection
 * suffix included, as Kyverno does). Like Kyverno, only the first such warning is returned.
 */
export async function globalContextWarnings(policy: Policy, lookup: GlobalContextEntryLookup): Promise<string[]> {
  for (const rule of policy.spec?.rules ?? []) {
    for (const entry of rule.context ?? []) {
      const reference = entry.globalReference;
      if (!reference) continue;
      if (!reference.name) return ['Global context entry name is not provided'];
      if (!(await lookup(reference.name))?.ready) {
        return [`Global context entry ${reference.name} does not exist or is not ready`];
      }
    }
  }
  return [];
}

/** Kyverno's GlobalContextEntryStatus.IsReady: the status holds a Ready condition that is True. */
export function globalContextEntryReady(status: JsonValue | undefined): boolean {
  if (!isObject(status) || !Array.isArray(status.conditions)) return false;
  return status.conditions.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True');
}
