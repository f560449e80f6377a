import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { celPolicyValidation, isCelPolicyKind } from './cel-policy-validation';

const vpol: KubeObject = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name: 'p' },
  spec: { validations: [{ expression: 'object.spec.replicas > "1"' }] },
};
const polex = (namespace: string): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'PolicyException',
  metadata: { name: 'e', namespace },
  spec: { policyRefs: [{ name: 'p', kind: 'ValidatingPolicy' }] },
});
const typeError = {
  field: 'spec.validations[0].expression',
  message: "compilation failed: ERROR: <input>:1:21: found no matching overload for '_>_' applied to '(int, string)'",
};

describe('celPolicyValidation', () => {
  it('refuses a policy whose CEL does not type-check, naming the field and the compiler message', () => {
    const decision = celPolicyValidation(vpol, { exceptionNamespaces: [], policyErrors: () => [typeError] });
    expect(decision).toMatchObject({ allowed: false, message: `${typeError.field}: ${typeError.message}` });
    expect(decision.warnings).toEqual([`${typeError.field}: ${typeError.message}`]);
  });

  it('lists several problems as Go aggregates them, and admits a valid policy', () => {
    const second = { field: 'spec.matchConstraints', message: 'Required value: a matchConstraints is required' };
    const decision = celPolicyValidation(vpol, { exceptionNamespaces: [], policyErrors: () => [typeError, second] });
    expect(decision.message).toBe(`[${typeError.field}: ${typeError.message}, ${second.field}: ${second.message}]`);
    expect(celPolicyValidation(vpol, { exceptionNamespaces: [], policyErrors: () => [] }).allowed).toBe(true);
  });

  it('refuses rather than admits when the check itself fails', () => {
    const decision = celPolicyValidation(vpol, {
      exceptionNamespaces: [],
      policyErrors: () => {
        throw new Error('checker down');
      },
    });
    expect(decision).toMatchObject({ allowed: false, message: 'spec: the policy could not be checked: checker down' });
  });

  it('admits a CEL exception outside the exception namespaces with a warning, and judges its CEL', () => {
    const none = () => [];
    expect(
      celPolicyValidation(polex('kyverno'), { exceptionNamespaces: ['kyverno'], exceptionErrors: none }),
    ).toMatchObject({
      allowed: true,
    });
    expect(
      celPolicyValidation(polex('team'), { exceptionNamespaces: ['kyverno'], exceptionErrors: none }).warnings,
    ).toEqual(['PolicyException resource namespace must match the defined namespace.']);
    expect(celPolicyValidation(polex('team'), { exceptionNamespaces: [], exceptionErrors: none }).warnings).toEqual([
      'PolicyException resources would not be processed until it is enabled.',
    ]);
    const bad = { field: 'spec.matchConditions[0].expression', message: "undeclared reference to 'obj'" };
    expect(
      celPolicyValidation(polex('kyverno'), { exceptionNamespaces: ['kyverno'], exceptionErrors: () => [bad] }),
    ).toMatchObject({ allowed: false, message: `${bad.field}: ${bad.message}` });
  });

  it('knows the policies.kyverno.io kinds from the classic ones', () => {
    expect(isCelPolicyKind(vpol)).toBe(true);
    expect(isCelPolicyKind(polex('x'))).toBe(true);
    expect(isCelPolicyKind({ apiVersion: 'kyverno.io/v2', kind: 'PolicyException' })).toBe(false);
    expect(isCelPolicyKind({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy' })).toBe(false);
  });

  it('judges ImageValidatingPolicies with the image policy checks (the real ones: an unknown attestor is refused)', () => {
    const ivpol = (expression: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1beta1',
      kind: 'ImageValidatingPolicy',
      metadata: { name: 'ivpol-sample' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        attestors: [{ name: 'notary', notary: { certs: { value: 'cert' } } }],
        validations: [{ expression }],
      },
    });
    expect(isCelPolicyKind(ivpol('true'))).toBe(true);
    expect(celPolicyValidation(ivpol('true'), { exceptionNamespaces: [] }).allowed).toBe(true);
    const refused = celPolicyValidation(ivpol('images.containers.size() > "1"'), { exceptionNamespaces: [] });
    expect(refused.allowed).toBe(false);
    expect(refused.message).toMatch(/^spec\.validations\[0\]\.expression: /);
    const viaInjected = celPolicyValidation(ivpol('true'), {
      exceptionNamespaces: [],
      policyErrors: () => [typeError],
      imagePolicyErrors: () => [{ field: 'spec.attestors[0]', message: 'bad' }],
    });
    expect(viaInjected.message).toBe('spec.attestors[0]: bad');
  });

  const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];

  it('judges MutatingPolicies with the mutating policy checks (the real ones: a patch that does not type-check is refused)', () => {
    const mpol = (expression: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'add-label' },
      spec: {
        matchConstraints: { resourceRules: rules },
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }],
      },
    });
    const good = 'Object{metadata: Object.metadata{labels: {"team": "a"}}}';
    expect(isCelPolicyKind(mpol(good))).toBe(true);
    expect(celPolicyValidation(mpol(good), { exceptionNamespaces: [] })).toMatchObject({ allowed: true });
    const refused = celPolicyValidation(mpol('object.metadata.name +'), { exceptionNamespaces: [] });
    expect(refused.allowed).toBe(false);
    expect(refused.message).toMatch(/^spec\.mutations\[0\]\.applyConfiguration\.expression: /);
    expect(
      celPolicyValidation(
        { ...mpol(good), kind: 'NamespacedMutatingPolicy', metadata: { name: 'm', namespace: 't' } },
        {
          exceptionNamespaces: [],
          mutatingPolicyErrors: () => [{ field: 'spec.mutations', message: 'injected' }],
        },
      ).message,
    ).toBe('spec.mutations: injected');
  });

  it('judges DeletingPolicies with the deleting policy checks (the real ones: a bad cron schedule is refused)', () => {
    const dpol = (schedule: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'DeletingPolicy',
      metadata: { name: 'old-configmaps' },
      spec: { matchConstraints: { resourceRules: rules }, schedule },
    });
    expect(isCelPolicyKind(dpol('*/5 * * * *'))).toBe(true);
    expect(celPolicyValidation(dpol('*/5 * * * *'), { exceptionNamespaces: [] })).toMatchObject({ allowed: true });
    const refused = celPolicyValidation(dpol('every minute'), { exceptionNamespaces: [] });
    expect(refused.allowed).toBe(false);
    expect(refused.message).toMatch(/^spec\.schedule: /);
  });

  it('judges GeneratingPolicies with the generating policy checks (the real ones: Kyverno requires resource rules)', () => {
    const gpol = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1beta1',
      kind: 'GeneratingPolicy',
      metadata: { name: 'g' },
      spec: { generate: [{ expression: 'generator.Apply("team", [])' }], ...spec } as KubeObject['spec'],
    });
    const good = gpol({ matchConstraints: { resourceRules: rules } });
    expect(isCelPolicyKind(good)).toBe(true);
    expect(celPolicyValidation(good, { exceptionNamespaces: [] })).toMatchObject({ allowed: true });
    const refused = celPolicyValidation(gpol({}), { exceptionNamespaces: [] });
    expect(refused.allowed).toBe(false);
    expect(refused.message).toMatch(/spec\.matchConstraints: /);
    expect(
      celPolicyValidation(good, {
        exceptionNamespaces: [],
        generatingPolicyErrors: () => [{ field: 'spec.generate[0].expression', message: 'injected' }],
      }).message,
    ).toBe('spec.generate[0].expression: injected');
  });
});
