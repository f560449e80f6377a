/**
 * Keeps a worker's PolicyStore equal to the main thread's cache. The main thread sends what changed
 * between two of its snapshots (entries are replaced, never edited, so a changed entry is a new
 * object); the worker applies it to its own store, which validates and compiles as the main one
 * did. `generation` is the main snapshot's, so a review can say which state it needs.
 */
import type { Policy, PolicyException } from '@edict/engine';
import { PolicySnapshot, type PolicyStore, type PolicyStoreSettings } from '@edict/policy';

type PolicyRef = Pick<Policy, 'kind' | 'metadata'>;
type ExceptionRef = Pick<PolicyException, 'metadata'>;

export interface PolicySync {
  readonly generation: number;
  readonly settings: PolicyStoreSettings;
  readonly removedPolicies: PolicyRef[];
  /** Last valid versions the main store keeps in force for policies in `policies` now invalid. */
  readonly lastValid: Policy[];
  readonly policies: Policy[];
  readonly removedExceptions: ExceptionRef[];
  readonly exceptions: PolicyException[];
}

/** What turns a store that mirrors `previous` into one that mirrors `next`. */
export function policySync(previous: PolicySnapshot, next: PolicySnapshot, settings: PolicyStoreSettings): PolicySync {
  const before = entriesOf(previous);
  const after = entriesOf(next);
  const removedPolicies: PolicyRef[] = [];
  const policies: Policy[] = [];
  const lastValid: Policy[] = [];
  for (const [key, entry] of before) if (!after.has(key) && entry.source) removedPolicies.push(refOf(entry.source));
  for (const [key, entry] of after) {
    if (before.get(key) === entry || !entry.source) continue;
    // An invalid version with its last valid one in force: the worker learns that one first, so that
    // a worker that starts now keeps it in force as the main store does.
    const enforced = next.invalid.get(key)?.enforced;
    if (enforced?.basis === 'last-valid' && enforced.policy.source) lastValid.push(enforced.policy.source);
    policies.push(entry.source);
  }
  const removedExceptions: ExceptionRef[] = [];
  const exceptions: PolicyException[] = [];
  for (const [key, entry] of previous.allExceptions)
    if (!next.allExceptions.has(key)) removedExceptions.push({ metadata: entry.exception.metadata });
  for (const [key, entry] of next.allExceptions)
    if (previous.allExceptions.get(key) !== entry) exceptions.push(entry.exception);
  return {
    generation: next.generation,
    settings,
    removedPolicies,
    lastValid,
    policies,
    removedExceptions,
    exceptions,
  };
}

/** Applies a sync to a worker's store: settings first, as they decide how the objects are judged. */
export function applyPolicySync(store: PolicyStore, sync: PolicySync): void {
  store.setExceptionNamespaces(sync.settings.exceptionNamespaces);
  store.setClusterScopedKinds(sync.settings.clusterScopedKinds);
  for (const policy of sync.removedPolicies) store.removePolicy(policy);
  for (const policy of sync.lastValid) store.restoreLastValid(policy);
  for (const policy of sync.policies) store.upsertPolicy(policy);
  for (const exception of sync.removedExceptions) store.removeException(exception);
  for (const exception of sync.exceptions) store.upsertException(exception);
}

/** Valid and invalid policies by key (a policy moves between the two when it is fixed or broken). */
function entriesOf(snapshot: PolicySnapshot): Map<string, { source?: Policy }> {
  return new Map<string, { source?: Policy }>([...snapshot.policies, ...snapshot.invalid]);
}

function refOf(policy: Policy): PolicyRef {
  return { kind: policy.kind, metadata: policy.metadata };
}
