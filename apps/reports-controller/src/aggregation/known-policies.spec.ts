import { describe, expect, it } from 'vitest';
import { changedPolicies, policyKeyOfLabel, policyLabelOf } from './known-policies';

describe('known policies', () => {
  it('finds the policies removed or changed, not the added ones', () => {
    const before = new Map([
      ['kept', '1'],
      ['changed', '2'],
      ['shop/removed', '3'],
    ]);
    const after = new Map([
      ['kept', '1'],
      ['changed', '5'],
      ['added', '1'],
    ]);
    expect(changedPolicies(before, after)).toEqual(['changed', 'shop/removed']);
  });

  it("maps policy keys to report labels and back, a Policy's within its namespace", () => {
    expect(policyLabelOf('require-team')).toEqual({ label: 'cpol.kyverno.io/require-team' });
    expect(policyLabelOf('shop/require-team')).toEqual({ label: 'pol.kyverno.io/require-team', namespace: 'shop' });
    expect(policyKeyOfLabel('cpol.kyverno.io/require-team', 'shop')).toBe('require-team');
    expect(policyKeyOfLabel('pol.kyverno.io/require-team', 'shop')).toBe('shop/require-team');
    expect(policyKeyOfLabel('pol.kyverno.io/require-team', undefined)).toBeUndefined();
    expect(policyKeyOfLabel('app.kubernetes.io/managed-by', 'shop')).toBeUndefined();
  });
});
