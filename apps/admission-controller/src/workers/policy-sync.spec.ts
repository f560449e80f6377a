import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '@edict/engine';
import { PolicySnapshot, PolicyStore } from '@edict/policy';
import { labelRule, policyOf } from '@edict/policy/testing';
import { applyPolicySync, policySync } from './policy-sync';

const versioned = (policy: Policy, resourceVersion: string): Policy => ({
  ...policy,
  metadata: { ...policy.metadata, uid: 'u', resourceVersion },
});
const enforce = { validationFailureAction: 'Enforce' as const };
const untyped = { name: 'untyped', match: { any: [{ resources: { kinds: ['Pod'] } }] } } as Rule;

describe('policySync', () => {
  it('gives a worker that starts now the last valid version the main store keeps in force', () => {
    const main = new PolicyStore();
    main.upsertPolicy(versioned(policyOf('p', [labelRule('r', ['Pod'])], enforce), '1'));
    main.upsertPolicy(versioned(policyOf('p', [labelRule('r', ['Pod']), untyped], enforce), '2'));
    const sync = policySync(PolicySnapshot.empty(), main.snapshot(), main.settings());
    expect(sync.lastValid.map((p) => p.metadata.resourceVersion)).toEqual(['1']);
    expect(sync.policies.map((p) => p.metadata.resourceVersion)).toEqual(['2']);

    const worker = new PolicyStore();
    applyPolicySync(worker, sync);
    const snapshot = worker.snapshot();
    expect(snapshot.invalid.get('p')?.enforced?.basis).toBe('last-valid');
    expect(snapshot.policies.get('p')?.resourceVersion).toBe('1');
    expect(snapshot.invalid.get('p')?.resourceVersion).toBe('2');

    // A worker that mirrored all along ends in the same state from the incremental sync.
    const follower = new PolicyStore();
    const before = new PolicyStore();
    before.upsertPolicy(versioned(policyOf('p', [labelRule('r', ['Pod'])], enforce), '1'));
    applyPolicySync(follower, policySync(PolicySnapshot.empty(), before.snapshot(), before.settings()));
    applyPolicySync(follower, policySync(before.snapshot(), main.snapshot(), main.settings()));
    expect(follower.snapshot().policies.get('p')?.resourceVersion).toBe('1');
    expect(follower.snapshot().invalid.get('p')?.enforced?.basis).toBe('last-valid');
  });
});
