import { describe, expect, it } from 'vitest';
import { PolicyStore } from '@edict/policy';
import { labelRule, policyOf } from '@edict/policy/testing';
import { backgroundKindSelectors, backgroundPoliciesFor, scanSignature } from './background-policies';

describe('background policies', () => {
  const store = new PolicyStore();
  store.upsertPolicy(policyOf('pods', [labelRule('a', ['Pod', 'apps/v1/Deployment'])]));
  store.upsertPolicy(policyOf('admission-only', [labelRule('b', ['ConfigMap'])], { background: false }));
  store.upsertPolicy(policyOf('namespaces', [labelRule('c', ['Namespace'])], { admission: false }));

  it('watches the kinds of background validate rules only', () => {
    expect(backgroundKindSelectors(store.snapshot())).toEqual(['Namespace', 'Pod', 'apps/v1/Deployment']);
  });

  it('answers the same set for the same type and namespace, with a signature of the versions', () => {
    const snapshot = store.snapshot();
    const pods = backgroundPoliciesFor(snapshot, { group: '', version: 'v1', kind: 'Pod' }, 'shop');
    expect(pods.policies.map((policy) => policy.key)).toEqual(['pods']);
    expect(backgroundPoliciesFor(snapshot, { group: '', version: 'v1', kind: 'Pod' }, 'shop')).toBe(pods);
    expect(
      backgroundPoliciesFor(snapshot, { group: 'apps', version: 'v1', kind: 'Deployment' }, 'shop').policies,
    ).toHaveLength(1);
    expect(backgroundPoliciesFor(snapshot, { group: '', version: 'v1', kind: 'ConfigMap' }, 'shop').policies).toEqual(
      [],
    );
  });

  it('changes its scan signature for background policies only', () => {
    const before = scanSignature(store.snapshot());
    store.upsertPolicy({
      ...policyOf('admission-only', [labelRule('b', ['Pod'])], { background: false }),
      metadata: { name: 'admission-only', resourceVersion: '2' },
    });
    expect(scanSignature(store.snapshot())).toBe(before);
    store.upsertPolicy({
      ...policyOf('pods', [labelRule('a', ['Pod'])]),
      metadata: { name: 'pods', resourceVersion: '2' },
    });
    expect(scanSignature(store.snapshot())).not.toBe(before);
  });

  it('leaves out a ClusterPolicy the API server enforces through its generated VAP', () => {
    const generated = new PolicyStore();
    generated.upsertPolicy({
      ...policyOf('secrets', [labelRule('d', ['Secret'])]),
      status: { validatingadmissionpolicy: { generated: true, message: '' } },
    } as Parameters<PolicyStore['upsertPolicy']>[0]);
    expect(backgroundKindSelectors(generated.snapshot())).toEqual([]);
  });
});
