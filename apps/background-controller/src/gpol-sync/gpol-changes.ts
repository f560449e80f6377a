/**
 * What changed between two looks at the installed GeneratingPolicies (and Namespaced ones), as
 * Kyverno's policy informer reports it: created, spec changed (a status or metadata write is no
 * change), deleted. Deleted and created again between two looks (another uid) is both. A policy
 * that stopped compiling is still installed, so it is not deleted: its last valid version is kept.
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { gpolKey } from './gpol-downstream';

export type GpolChange =
  | { readonly type: 'created'; readonly policy: CompiledGeneratingPolicy }
  | { readonly type: 'updated'; readonly policy: CompiledGeneratingPolicy; readonly previous: CompiledGeneratingPolicy }
  | { readonly type: 'deleted'; readonly previous: CompiledGeneratingPolicy };

export function changeKey(change: GpolChange): string {
  return gpolKey(change.type === 'deleted' ? change.previous : change.policy);
}

export class GpolChangeTracker {
  private seen = new Map<string, CompiledGeneratingPolicy>();

  /**
   * The changes since the last look (everything is created at the first). `installed` are the keys
   * of every installed policy, those that do not compile included.
   */
  observe(current: readonly CompiledGeneratingPolicy[], installed: ReadonlySet<string>): GpolChange[] {
    const changes: GpolChange[] = [];
    const next = new Map<string, CompiledGeneratingPolicy>();
    for (const policy of current) {
      const key = gpolKey(policy);
      next.set(key, policy);
      const before = this.seen.get(key);
      if (!before) changes.push({ type: 'created', policy });
      else if (uidOf(before) !== uidOf(policy)) {
        changes.push({ type: 'deleted', previous: before }, { type: 'created', policy });
      } else if (JSON.stringify(before.policy.spec) !== JSON.stringify(policy.policy.spec)) {
        changes.push({ type: 'updated', policy, previous: before });
      }
    }
    for (const [key, before] of this.seen) {
      if (next.has(key)) continue;
      if (installed.has(key)) next.set(key, before);
      else changes.push({ type: 'deleted', previous: before });
    }
    this.seen = next;
    return changes;
  }

  /** The policy under this key as last seen. */
  get(key: string): CompiledGeneratingPolicy | undefined {
    return this.seen.get(key);
  }
}

function uidOf(policy: CompiledGeneratingPolicy): string | undefined {
  return policy.policy.metadata?.uid;
}
