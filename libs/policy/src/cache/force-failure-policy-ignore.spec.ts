import { describe, expect, it } from 'vitest';
import { withFailurePolicyIgnore } from './force-failure-policy-ignore';

describe('withFailurePolicyIgnore', () => {
  it('sets spec.failurePolicy to Ignore, and the webhookConfiguration failure policy a policy names', () => {
    const policy = {
      kind: 'ClusterPolicy',
      spec: { failurePolicy: 'Fail', webhookConfiguration: { failurePolicy: 'Fail', timeoutSeconds: 5 }, rules: [] },
    };
    expect(withFailurePolicyIgnore(policy).spec).toEqual({
      failurePolicy: 'Ignore',
      webhookConfiguration: { failurePolicy: 'Ignore', timeoutSeconds: 5 },
      rules: [],
    });
    expect(policy.spec.failurePolicy).toBe('Fail');
  });

  it('sets it when the policy says nothing (Fail by default), and leaves an Ignore policy as it is', () => {
    expect(withFailurePolicyIgnore({ spec: { validations: [] } }).spec).toEqual({
      failurePolicy: 'Ignore',
      validations: [],
    });
    const ignoring = { spec: { failurePolicy: 'Ignore', webhookConfiguration: { timeoutSeconds: 3 } } };
    expect(withFailurePolicyIgnore(ignoring)).toBe(ignoring);
    const noSpec = { kind: 'ClusterPolicy' };
    expect(withFailurePolicyIgnore(noSpec)).toBe(noSpec);
  });
});
