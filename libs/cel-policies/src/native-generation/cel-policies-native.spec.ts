import { describe, expect, it } from 'vitest';
import type { CelPolicyExceptionObject, ValidatingPolicyObject } from '../api/types';
import { buildMutatingPolicyMap, type MutatingPolicyObject } from './mutating-policy-map';
import { buildValidatingPolicyVap, quotedList } from './validating-policy-vap';

const deployments = {
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
};

function vpol(spec: Partial<NonNullable<ValidatingPolicyObject['spec']>> = {}): ValidatingPolicyObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name: 'labels', uid: 'u1' },
    spec: {
      autogen: { validatingAdmissionPolicy: { enabled: true } },
      matchConstraints: deployments,
      validations: [{ expression: 'object.metadata.name in exceptions.allowedValues', message: 'm' }],
      ...spec,
    },
  };
}

function celex(spec: CelPolicyExceptionObject['spec']): CelPolicyExceptionObject {
  return { kind: 'PolicyException', metadata: { name: 'ex', namespace: 'default' }, spec };
}

describe('buildValidatingPolicyVap', () => {
  it('is off unless spec.autogen.validatingAdmissionPolicy.enabled, and skipped when pod autogen applies', () => {
    expect(buildValidatingPolicyVap(vpol({ autogen: {} }), [])).toEqual({
      generate: false,
      message: 'skip generating ValidatingAdmissionPolicy: not enabled.',
    });
    const pods = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    };
    expect(buildValidatingPolicyVap(vpol({ matchConstraints: pods }), [])).toEqual({
      generate: false,
      message: 'skip generating ValidatingAdmissionPolicy: pod controllers autogen is enabled.',
    });
    const none = vpol({
      matchConstraints: pods,
      autogen: { podControllers: { controllers: [] }, validatingAdmissionPolicy: { enabled: true } },
    });
    expect(buildValidatingPolicyVap(none, []).generate).toBe(true);
  });

  it('negates exception match conditions, turns allowed values into variables and binds Deny by default', () => {
    const decision = buildValidatingPolicyVap(vpol(), [
      celex({
        matchConditions: [{ name: 'skip', expression: "object.metadata.name == 'a'" }],
        allowedValues: ['x', "it's"],
      }),
    ]);
    if (!decision.generate) throw new Error(decision.message);
    const { policy, binding } = decision.objects;
    expect(policy.metadata.name).toBe('vpol-labels');
    expect(policy.metadata.ownerReferences).toEqual([
      { apiVersion: 'policies.kyverno.io/v1beta1', kind: 'ValidatingPolicy', name: 'labels', uid: 'u1' },
    ]);
    expect(policy.spec).toEqual({
      matchConstraints: deployments,
      variables: [{ name: 'allowedValues', expression: quotedList(['x', "it's"]) }],
      validations: [{ expression: 'object.metadata.name in variables.allowedValues', message: 'm' }],
      matchConditions: [{ name: 'skip', expression: "!(object.metadata.name == 'a')" }],
    });
    expect(quotedList(['x', "it's"])).toBe("['x', 'it\\'s']");
    expect(binding).toMatchObject({
      metadata: { name: 'vpol-labels-binding' },
      spec: { policyName: 'vpol-labels', validationActions: ['Deny'] },
    });
  });

  it('keeps a policy whose exceptions carry compensating validations out', () => {
    const withControls = celex({ validations: [{ expression: 'true' }] } as never);
    const decision = buildValidatingPolicyVap(vpol(), [withControls]);
    expect(decision).toEqual({
      generate: false,
      message:
        'policy exception(s) default/ex define compensating controls (spec.validations), which a generated ValidatingAdmissionPolicy cannot evaluate',
    });
  });
});

function mpol(spec: Partial<NonNullable<MutatingPolicyObject['spec']>> = {}): MutatingPolicyObject {
  return {
    kind: 'MutatingPolicy',
    metadata: { name: 'add-label', uid: 'u2' },
    spec: {
      autogen: { mutatingAdmissionPolicy: { enabled: true } },
      matchConstraints: { ...deployments, namespaceSelector: { matchLabels: { a: 'b' } } },
      matchConditions: [{ name: 'dev', expression: "request.namespace == 'dev'" }],
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] as never,
      ...spec,
    },
  };
}

describe('buildMutatingPolicyMap', () => {
  it('writes the served version, resource rules only, exception conditions first and reinvocation Never', () => {
    const decision = buildMutatingPolicyMap(
      mpol({ failurePolicy: 'Fail' }),
      [celex({ matchConditions: [{ name: 'skip', expression: 'false' }] })],
      'v1beta1',
    );
    if (!decision.generate) throw new Error(decision.message);
    const { policy, binding } = decision.objects;
    expect(policy.apiVersion).toBe('admissionregistration.k8s.io/v1beta1');
    expect(policy.metadata.name).toBe('mpol-add-label');
    expect(policy.spec).toEqual({
      matchConstraints: deployments,
      matchConditions: [
        { name: 'skip', expression: '!(false)' },
        { name: 'dev', expression: "request.namespace == 'dev'" },
      ],
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
    });
    expect(binding).toMatchObject({
      apiVersion: 'admissionregistration.k8s.io/v1beta1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: 'mpol-add-label-binding' },
      spec: { policyName: 'mpol-add-label' },
    });
  });

  it('says why it skips: not enabled, JSON mode, server-side apply, pod autogen', () => {
    const reason = (policy: MutatingPolicyObject): string | undefined => {
      const decision = buildMutatingPolicyMap(policy, [], 'v1');
      return decision.generate ? undefined : decision.message;
    };
    expect(reason(mpol({ autogen: {} }))).toBe('skip generating MutatingAdmissionPolicy: not enabled.');
    expect(reason(mpol({ evaluation: { mode: 'JSON' } }))).toBe(
      'skip generating MutatingAdmissionPolicy: JSON evaluation mode has no admission equivalent.',
    );
    expect(reason(mpol({ evaluation: { useServerSideApply: true } as never }))).toContain('useServerSideApply');
    const pods = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    };
    expect(
      reason(
        mpol({
          matchConstraints: pods,
          autogen: { podControllers: { controllers: ['deployments'] }, mutatingAdmissionPolicy: { enabled: true } },
        }),
      ),
    ).toBe('skip generating MutatingAdmissionPolicy: pod controllers autogen is enabled.');
  });
});
