import { describe, expect, it } from 'vitest';
import { admissionPolicyTypes, admissionPolicyVersions } from './admission-policy-types';

const V1ALPHA1 = 'admissionregistration.k8s.io/v1alpha1';
const V1BETA1 = 'admissionregistration.k8s.io/v1beta1';

describe('admissionPolicyVersions', () => {
  it('serves ValidatingAdmissionPolicy v1 only and no MutatingAdmissionPolicy by default (kube 1.32)', () => {
    expect(admissionPolicyVersions()).toEqual({ validating: ['v1'], mutating: [] });
  });

  it("follows Kyverno CI's vap-v1alpha1 kind config on kube 1.33: MAP v1alpha1", () => {
    const versions = admissionPolicyVersions({
      kubernetesVersion: 'v1.33.7',
      featureGates: { MutatingAdmissionPolicy: true },
      runtimeConfig: { [V1ALPHA1]: true, 'admissionregistration.k8s.io/v1': true },
    });
    expect(versions).toEqual({ validating: ['v1', 'v1alpha1'], mutating: ['v1alpha1'] });
  });

  it("follows Kyverno CI's vap-v1beta1 kind config on kube 1.34: MAP v1beta1 and v1alpha1", () => {
    const versions = admissionPolicyVersions({
      kubernetesVersion: '1.34',
      featureGates: { MutatingAdmissionPolicy: true },
      runtimeConfig: { [V1ALPHA1]: true, [V1BETA1]: true },
    });
    expect(versions.mutating).toEqual(['v1beta1', 'v1alpha1']);
  });

  it('serves MAP v1 from kube 1.36 without any setting, and none when the gate is turned off', () => {
    expect(admissionPolicyVersions({ kubernetesVersion: '1.36' }).mutating).toEqual(['v1']);
    expect(
      admissionPolicyVersions({ kubernetesVersion: '1.36', featureGates: { MutatingAdmissionPolicy: false } }).mutating,
    ).toEqual([]);
  });

  it('needs the feature gate for alpha MAP even when the runtime config enables the version', () => {
    expect(
      admissionPolicyVersions({ kubernetesVersion: '1.33', runtimeConfig: { [V1ALPHA1]: true } }).mutating,
    ).toEqual([]);
  });

  it('refuses a version that is not 1.x, naming the field', () => {
    expect(() => admissionPolicyVersions({ kubernetesVersion: '2.0' })).toThrow(/apiServer\.kubernetesVersion/);
  });
});

describe('admissionPolicyTypes', () => {
  it('gives each served version the policy and binding kinds, policies with a status subresource', () => {
    const types = admissionPolicyTypes({ kubernetesVersion: '1.36' });
    expect(types.map((type) => `${type.version} ${type.kind} ${type.subresources.join(',')}`)).toEqual([
      'v1 ValidatingAdmissionPolicy status',
      'v1 ValidatingAdmissionPolicyBinding ',
      'v1 MutatingAdmissionPolicy ',
      'v1 MutatingAdmissionPolicyBinding ',
    ]);
    expect(types.every((type) => !type.namespaced && type.group === 'admissionregistration.k8s.io')).toBe(true);
  });
});
