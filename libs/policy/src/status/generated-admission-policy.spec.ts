import { describe, expect, it } from 'vitest';
import { enforcedByGeneratedAdmissionPolicy } from './generated-admission-policy';

describe('enforcedByGeneratedAdmissionPolicy', () => {
  it('reads the ClusterPolicy status the generator writes', () => {
    const cpol = (generated: boolean) => ({
      kind: 'ClusterPolicy',
      status: { validatingadmissionpolicy: { generated, message: '' } },
    });
    expect(enforcedByGeneratedAdmissionPolicy(cpol(true))).toBe(true);
    expect(enforcedByGeneratedAdmissionPolicy(cpol(false))).toBe(false);
    expect(enforcedByGeneratedAdmissionPolicy({ kind: 'ClusterPolicy' })).toBe(false);
  });

  it('reads status.generated of ValidatingPolicies and MutatingPolicies only', () => {
    expect(enforcedByGeneratedAdmissionPolicy({ kind: 'ValidatingPolicy', status: { generated: true } })).toBe(true);
    expect(enforcedByGeneratedAdmissionPolicy({ kind: 'MutatingPolicy', status: { generated: true } })).toBe(true);
    expect(enforcedByGeneratedAdmissionPolicy({ kind: 'MutatingPolicy', status: { generated: 'true' } })).toBe(false);
    // Namespaced kinds and image policies are never generated: a stray field does not count.
    expect(
      enforcedByGeneratedAdmissionPolicy({ kind: 'NamespacedValidatingPolicy', status: { generated: true } }),
    ).toBe(false);
    expect(enforcedByGeneratedAdmissionPolicy({ kind: 'Policy', status: { generated: true } })).toBe(false);
  });
});
