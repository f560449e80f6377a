/**
 * What changed between two looks at the installed policies, as Kyverno's policy informer reports
 * it: a policy created, one whose spec changed (a status or metadata write is no change), one
 * deleted. A policy that turned invalid is still installed, so it is not deleted: the tracker keeps
 * its last valid version, and compares with that when it becomes valid again.
 */
import type { CachedPolicy, PolicySnapshot } from '@edict/policy';

export type PolicyChange =
  | { readonly type: 'created'; readonly policy: CachedPolicy }
  | { readonly type: 'updated'; readonly policy: CachedPolicy; readonly previous: CachedPolicy }
  | { readonly type: 'deleted'; readonly previous: CachedPolicy };

export class PolicyChangeTracker {
  private seen = new Map<string, CachedPolicy>();

  /** The changes since the last look (everything is created at the first). */
  observe(current: Pick<PolicySnapshot, 'policies' | 'invalid'>): PolicyChange[] {
    const changes: PolicyChange[] = [];
    const next = new Map(current.policies);
    for (const [key, policy] of current.policies) {
      const before = this.seen.get(key);
      if (!before) changes.push({ type: 'created', policy });
      else if (before.uid !== policy.uid) {
        // Deleted and created again between two looks: both happened.
        changes.push({ type: 'deleted', previous: before }, { type: 'created', policy });
      } else if (specText(before) !== specText(policy)) changes.push({ type: 'updated', policy, previous: before });
    }
    for (const [key, before] of this.seen) {
      if (current.policies.has(key)) continue;
      if (current.invalid.has(key)) next.set(key, before);
      else changes.push({ type: 'deleted', previous: before });
    }
    this.seen = next;
    return changes;
  }
}

/** The spec as written (without autogen rules): what Kyverno compares on update. */
function specText(policy: CachedPolicy): string {
  return JSON.stringify((policy.source ?? policy.compiled.policy).spec);
}
