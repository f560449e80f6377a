import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '@edict/engine';
import { labelRule, policyOf } from '../testing';
import { PolicyStore } from './policy-store';
import type { PolicyQuery } from './types';

const query = (extra: Partial<PolicyQuery> = {}): PolicyQuery => ({
  kind: 'Pod',
  group: '',
  version: 'v1',
  operation: 'CREATE',
  namespace: 'team-a',
  type: 'validate',
  ...extra,
});
const keys = (list: readonly { key: string }[]) => list.map((p) => p.key);
const versioned = (policy: Policy, resourceVersion: string, generation?: number): Policy => ({
  ...policy,
  metadata: { ...policy.metadata, uid: 'uid-1', resourceVersion, ...(generation ? { generation } : {}) },
});
/** A rule validation refuses (no rule type), as a stricter check after an upgrade would. */
const untyped: Rule = { name: 'untyped', match: { any: [{ resources: { kinds: ['Pod'] } }] } };
const mutateRule: Rule = {
  name: 'default-label',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  mutate: { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } },
};

describe('PolicyStore: a policy whose stored version turns invalid', () => {
  it('keeps an Enforce policy’s last valid version in force until it is fixed', () => {
    const store = new PolicyStore();
    const valid = versioned(policyOf('p', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }), '1', 1);
    store.upsertPolicy(valid);
    const lastValid = store.snapshot().policies.get('p')!;

    const broken = versioned(
      policyOf('p', [labelRule('r', ['Pod']), untyped], { validationFailureAction: 'Enforce' }),
      '2',
      2,
    );
    const result = store.upsertPolicy(broken);
    expect(result.status).toBe('invalid');
    const snapshot = store.snapshot();
    expect(snapshot.policies.get('p')).toBe(lastValid);
    expect(keys(snapshot.policiesFor(query()))).toEqual(['p']);
    const invalid = snapshot.invalid.get('p')!;
    expect(invalid.resourceVersion).toBe('2');
    expect(invalid.source).toBe(broken);
    expect(invalid.enforced).toEqual({ basis: 'last-valid', policy: lastValid });
    expect(invalid.problems.map((p) => p.path)).toContain('spec.rules[1]');

    // The same version again changes nothing; another invalid one keeps the same last valid version.
    expect(store.upsertPolicy(broken).status).toBe('unchanged');
    store.upsertPolicy(versioned(broken, '3', 3));
    expect(store.snapshot().invalid.get('p')?.enforced?.policy).toBe(lastValid);

    // Fixed: the new version is in force and the policy is no longer invalid.
    store.upsertPolicy(
      versioned(policyOf('p', [labelRule('r', ['Pod'], 'owner')], { validationFailureAction: 'Enforce' }), '4', 4),
    );
    const fixed = store.snapshot();
    expect(fixed.invalid.size).toBe(0);
    expect(fixed.policies.get('p')?.resourceVersion).toBe('4');
  });

  it('does not take the last valid version of a deleted policy for that of one created again under its name', () => {
    const store = new PolicyStore();
    store.upsertPolicy(
      versioned(policyOf('p', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }), '1'),
    );
    const recreated = policyOf('p', [labelRule('r', ['Pod']), untyped], { validationFailureAction: 'Enforce' });
    store.upsertPolicy({ ...recreated, metadata: { ...recreated.metadata, uid: 'uid-2', resourceVersion: '9' } });
    expect(store.snapshot().invalid.get('p')?.enforced?.basis).toBe('enforcing-validate-rules');
  });

  it('stops enforcing it when it is deleted', () => {
    const store = new PolicyStore();
    store.upsertPolicy(
      versioned(policyOf('p', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }), '1'),
    );
    store.upsertPolicy(versioned(policyOf('p', [untyped], { validationFailureAction: 'Enforce' }), '2'));
    expect(store.removePolicy(policyOf('p', []))).toBe(true);
    const snapshot = store.snapshot();
    expect(snapshot.policies.size + snapshot.invalid.size).toBe(0);
    expect(snapshot.policiesFor(query())).toEqual([]);
  });

  it('holds policies that deny or mutate at admission; drops Audit-only ones as Kyverno does', () => {
    const held = (spec: Partial<Policy['spec']>, rules: Rule[]) => {
      const store = new PolicyStore();
      store.upsertPolicy(versioned(policyOf('p', rules, spec), '1'));
      store.upsertPolicy(versioned(policyOf('p', [...rules, untyped], spec), '2'));
      return store.snapshot().invalid.get('p')?.enforced?.basis;
    };
    expect(held({ validationFailureAction: 'Audit' }, [labelRule('r', ['Pod'])])).toBeUndefined();
    expect(held({}, [labelRule('r', ['Pod'])])).toBeUndefined(); // Audit by default
    expect(held({ validationFailureAction: 'enforce' }, [labelRule('r', ['Pod'])])).toBe('last-valid');
    const ruleEnforce = labelRule('r', ['Pod'], 'team', {});
    ruleEnforce.validate = { ...ruleEnforce.validate, failureAction: 'Enforce' };
    expect(held({ validationFailureAction: 'Audit' }, [ruleEnforce])).toBe('last-valid');
    expect(
      held(
        {
          validationFailureAction: 'Audit',
          validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['prod'] }],
        },
        [labelRule('r', ['Pod'])],
      ),
    ).toBe('last-valid');
    expect(held({}, [mutateRule])).toBe('last-valid');
    expect(held({ validationFailureAction: 'Enforce', admission: false }, [labelRule('r', ['Pod'])])).toBeUndefined();
  });

  it('with no valid version known, enforces the stored version’s Enforce validate rules only', () => {
    const store = new PolicyStore();
    const stored = versioned(
      policyOf('p', [labelRule('r', ['Pod']), mutateRule, untyped], { validationFailureAction: 'Enforce' }),
      '7',
    );
    const result = store.upsertPolicy(stored);
    expect(result.status).toBe('invalid');
    const snapshot = store.snapshot();
    const invalid = snapshot.invalid.get('p')!;
    expect(invalid.enforced?.basis).toBe('enforcing-validate-rules');
    expect(invalid.enforced?.policy.compiled.policy.spec.rules.map((r) => r.name)).toEqual(
      expect.arrayContaining(['r']),
    );
    expect(invalid.enforced?.policy.compiled.policy.spec.rules.some((r) => r.mutate)).toBe(false);
    expect(keys(snapshot.policiesFor(query()))).toEqual(['p']);
    expect(snapshot.policiesFor(query({ type: 'mutate' }))).toEqual([]);

    // An Audit policy in the same state is dropped.
    const audit = new PolicyStore();
    audit.upsertPolicy(versioned(policyOf('p', [labelRule('r', ['Pod']), untyped]), '7'));
    expect(audit.snapshot().invalid.get('p')?.enforced).toBeUndefined();
    expect(audit.snapshot().policies.size).toBe(0);

    // A fix replaces it; a later invalid version is not mistaken for one after a valid version.
    store.upsertPolicy(
      versioned(policyOf('p', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }), '8'),
    );
    expect(store.snapshot().invalid.size).toBe(0);
  });

  it('keeps the version in force when a CRD change makes the stored version itself invalid', () => {
    const store = new PolicyStore();
    const widgets = versioned(
      policyOf('w', [labelRule('r', ['example.com/v1/Widget'])], { validationFailureAction: 'Enforce' }, 'team-a'),
      '5',
      3,
    );
    store.upsertPolicy(widgets);
    const inForce = store.snapshot().policies.get('team-a/w')!;
    store.setClusterScopedKinds(['Widget', 'example.com/v1/Widget']);
    const invalid = store.snapshot().invalid.get('team-a/w')!;
    expect(invalid.problems.some((p) => /Cluster wide resource/.test(p.message))).toBe(true);
    expect(invalid.enforced).toEqual({ basis: 'last-valid', policy: inForce });
    // A CRD of another group named Pod leaves a namespaced Policy on Pods valid.
    store.upsertPolicy(
      versioned(policyOf('pods', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }, 'team-a'), '6'),
    );
    store.setClusterScopedKinds(['Pod', 'example.com/v1/Pod']);
    expect(store.snapshot().invalid.has('team-a/pods')).toBe(false);
  });

  it('lets a mirror that starts now take the last valid version from the main store', () => {
    const main = new PolicyStore();
    const valid = versioned(policyOf('p', [labelRule('r', ['Pod'])], { validationFailureAction: 'Enforce' }), '1');
    const broken = versioned(policyOf('p', [untyped], { validationFailureAction: 'Enforce' }), '2');
    main.upsertPolicy(valid);
    main.upsertPolicy(broken);
    const mirror = new PolicyStore();
    mirror.restoreLastValid(main.snapshot().invalid.get('p')!.enforced!.policy.source!);
    mirror.upsertPolicy(broken);
    expect(mirror.snapshot().invalid.get('p')?.enforced?.basis).toBe('last-valid');
    expect(mirror.snapshot().policies.get('p')?.resourceVersion).toBe('1');
  });
});
