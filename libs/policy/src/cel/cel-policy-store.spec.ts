import { describe, expect, it } from 'vitest';
import { compileCelPolicyException, compileValidatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { CelPolicyStore, fieldErrorsOf, type CelPolicyCompilers } from './cel-policy-store';

/** @edict/cel-policies' compilers, counting their calls. */
function countingCompilers() {
  const calls = { policy: 0, exception: 0 };
  const compilers: CelPolicyCompilers = {
    policy: (object) => {
      calls.policy += 1;
      return compileValidatingPolicy(object);
    },
    exception: (object) => {
      calls.exception += 1;
      return compileCelPolicyException(object);
    },
  };
  return { calls, compilers };
}

const pods = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };

const vpol = (name: string, expression: string, generation = 1, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name, uid: `uid-${name}`, generation, resourceVersion: String(generation * 10), ...extra },
  spec: { matchConstraints: pods, validations: [{ expression }] },
});

const polex = (name: string, namespace: string, expiresAt?: string): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'PolicyException',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}`, resourceVersion: '1' },
  spec: { policyRefs: [{ name: 'p', kind: 'ValidatingPolicy' }], ...(expiresAt ? { expiresAt } : {}) },
});

describe('CelPolicyStore', () => {
  it('serves the policies that compile and keeps the field errors of those that do not', () => {
    const { compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers });
    store.upsertPolicy(vpol('good', 'true'));
    const bad = store.upsertPolicy(vpol('broken', 'bad.x == 1'));
    expect(store.validatingPolicies().map((p) => p.name)).toEqual(['good']);
    expect(bad.compiled).toBeUndefined();
    expect(bad.errors).toHaveLength(1);
    expect(bad.errors[0]).toMatchObject({ field: 'spec.validations[0].expression' });
    expect(bad.errors[0]!.message).toMatch(/bad/);
    expect(store.policies().map((e) => e.key)).toEqual(['ValidatingPolicy/broken', 'ValidatingPolicy/good']);
  });

  it('compiles once per generation: a status write (new resourceVersion) keeps the compiled form', () => {
    const { calls, compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers });
    const first = store.upsertPolicy(vpol('p', 'true', 1));
    const statusWrite = { ...vpol('p', 'true', 1), status: { conditionStatus: { ready: true } } };
    statusWrite.metadata.resourceVersion = '11';
    const second = store.upsertPolicy(statusWrite);
    expect(calls.policy).toBe(1);
    expect(second.compiled).toBe(first.compiled);
    expect(second.object).toBe(statusWrite);
    store.upsertPolicy(vpol('p', 'bad.x == 1', 2));
    expect(calls.policy).toBe(2);
    expect(store.validatingPolicies()).toEqual([]);
  });

  it('compiles again when the object is recreated under the same name (new uid)', () => {
    const { calls, compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers });
    store.upsertPolicy(vpol('p', 'true', 1));
    store.upsertPolicy(vpol('p', 'true', 1, { uid: 'other' }));
    expect(calls.policy).toBe(2);
  });

  it('keys NamespacedValidatingPolicies by namespace and removes what the informer deletes', () => {
    const { compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers });
    const namespaced = (namespace: string): KubeObject => ({
      ...vpol('same', 'true'),
      kind: 'NamespacedValidatingPolicy',
      metadata: { name: 'same', namespace, uid: `u-${namespace}`, generation: 1 },
    });
    store.upsertPolicy(namespaced('a'));
    store.upsertPolicy(namespaced('b'));
    store.upsertPolicy(vpol('same', 'true'));
    expect(store.policies().map((e) => e.key)).toEqual([
      'NamespacedValidatingPolicy/a/same',
      'NamespacedValidatingPolicy/b/same',
      'ValidatingPolicy/same',
    ]);
    store.removePolicy(namespaced('a'));
    expect(store.validatingPolicies().map((p) => `${p.kind}/${p.namespace ?? ''}`)).toEqual([
      'NamespacedValidatingPolicy/b',
      'ValidatingPolicy/',
    ]);
  });

  it('takes the kind from the feed when a listed item carries none', () => {
    const { compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers });
    const bare = { ...vpol('p', 'true'), kind: '' };
    expect(store.upsertPolicy(bare, 'ValidatingPolicy').object.kind).toBe('ValidatingPolicy');
  });

  it('honours exceptions only from the exception namespaces, and not once expired', () => {
    const { compilers } = countingCompilers();
    const store = new CelPolicyStore({ compilers, now: () => Date.parse('2026-06-01T00:00:00Z') });
    store.upsertException(polex('a', 'kyverno'));
    store.upsertException(polex('b', 'team-x'));
    store.upsertException(polex('old', 'kyverno', '2026-01-01T00:00:00Z'));
    store.upsertException(polex('later', 'kyverno', '2027-01-01T00:00:00Z'));
    expect(store.policyExceptions([])).toEqual([]);
    expect(store.policyExceptions(['kyverno']).map((e) => e.name)).toEqual(['a', 'later']);
    expect(store.policyExceptions(['team-*', 'kyverno']).map((e) => e.name)).toEqual(['a', 'later', 'b']);
    expect(store.policyExceptions(['*']).map((e) => e.name)).toEqual(['a', 'later', 'b']);
  });

  it('words a compiler crash as one error on the spec', () => {
    expect(fieldErrorsOf(new Error('boom'))).toEqual([{ field: 'spec', message: 'boom' }]);
  });

  it('serves ImageValidatingPolicies apart from ValidatingPolicies, autogen only for Pods alone', () => {
    const store = new CelPolicyStore();
    const ivpol = (name: string, resources: string[], namespace?: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind: namespace ? 'NamespacedImageValidatingPolicy' : 'ImageValidatingPolicy',
      metadata: { name, uid: `uid-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources }],
        },
        attestors: [],
        validations: [{ expression: 'true' }],
      },
    });
    store.upsertPolicy(vpol('same', 'true'));
    store.upsertPolicy(ivpol('same', ['pods']));
    store.upsertPolicy(ivpol('debug', ['pods', 'pods/ephemeralcontainers']));
    store.upsertPolicy(ivpol('local', ['pods'], 'team-a'));
    expect(store.validatingPolicies().map((p) => p.name)).toEqual(['same']);
    expect(store.imageValidatingPolicies().map((p) => `${p.kind}/${p.name}`)).toEqual([
      'ImageValidatingPolicy/debug',
      'ImageValidatingPolicy/same',
      'NamespacedImageValidatingPolicy/local',
    ]);
    const byName = new Map(store.imageValidatingPolicies().map((p) => [p.name, p]));
    expect(Object.keys((byName.get('same')!.autogenStatus.configs ?? {}) as object).sort()).toEqual([
      'cronjobs',
      'defaults',
    ]);
    expect(byName.get('debug')!.autogenStatus).toEqual({});
    expect(store.policies().map((e) => e.key)).toContain('NamespacedImageValidatingPolicy/team-a/local');
    const broken = store.upsertPolicy({
      ...ivpol('broken', ['pods']),
      spec: { attestors: [], validations: [{ expression: 'nope(' }] },
    });
    expect(broken.compiled).toBeUndefined();
    expect(broken.errors[0]!.field).toMatch(/^spec\./);
  });

  describe('MutatingPolicies and GeneratingPolicies', () => {
    const configmaps = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    };
    const mpol = (name: string, expression: string, namespace?: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
      metadata: { name, uid: `uid-m-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
      spec: {
        matchConstraints: configmaps,
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }],
      },
    });
    const gpol = (name: string, expression: string, namespace?: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
      metadata: { name, uid: `uid-g-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
      spec: { matchConstraints: configmaps, generate: [{ expression }] },
    });
    const label = 'Object{metadata: Object.metadata{labels: {"team": "a"}}}';

    it('compiles them with their own engines and serves each family apart', () => {
      const store = new CelPolicyStore();
      store.upsertPolicy(vpol('v', 'true'));
      store.upsertPolicy(mpol('label', label));
      store.upsertPolicy(mpol('local', label, 'team'));
      store.upsertPolicy(gpol('copy', 'generator.Apply("team", [])'));
      store.upsertPolicy(gpol('here', 'generator.Apply([])', 'team'));
      expect(store.validatingPolicies().map((p) => p.name)).toEqual(['v']);
      expect(store.imageValidatingPolicies()).toEqual([]);
      expect(store.mutatingPolicies().map((p) => `${p.kind}/${p.name}`)).toEqual([
        'MutatingPolicy/label',
        'NamespacedMutatingPolicy/local',
      ]);
      expect(store.mutatingPolicies()[1]!.namespace).toBe('team');
      expect(store.generatingPolicies().map((p) => `${p.kind}/${p.namespace ?? ''}/${p.name}`)).toEqual([
        'GeneratingPolicy//copy',
        'NamespacedGeneratingPolicy/team/here',
      ]);
      expect(store.policies().map((e) => e.key)).toEqual([
        'GeneratingPolicy/copy',
        'MutatingPolicy/label',
        'NamespacedGeneratingPolicy/team/here',
        'NamespacedMutatingPolicy/team/local',
        'ValidatingPolicy/v',
      ]);
    });

    it('keeps the field errors of one that does not compile, serves it not, and forgets it when deleted', () => {
      const store = new CelPolicyStore();
      const broken = store.upsertPolicy(mpol('broken', 'object.metadata.name +'));
      const noRules = store.upsertPolicy({
        ...gpol('g', 'generator.Apply("a", [])'),
        spec: { generate: [{ expression: 'true' }] },
      });
      expect(broken.compiled).toBeUndefined();
      expect(broken.errors[0]!.field).toBe('spec.mutations[0].applyConfiguration.expression');
      expect(noRules.compiled).toBeUndefined();
      expect(noRules.errors.map((e) => e.field)).toContain('spec.matchConstraints');
      expect(store.mutatingPolicies()).toEqual([]);
      expect(store.generatingPolicies()).toEqual([]);
      store.upsertPolicy(mpol('ok', label));
      expect(store.mutatingPolicies().map((p) => p.name)).toEqual(['ok']);
      store.removePolicy(mpol('ok', label));
      expect(store.mutatingPolicies()).toEqual([]);
    });

    it('refuses to serve a family whose compiler this build lacks (fail closed, named)', () => {
      const store = new CelPolicyStore({
        compilers: { policy: compileValidatingPolicy, exception: compileCelPolicyException },
      });
      const entry = store.upsertPolicy(gpol('g', 'generator.Apply("a", [])'));
      expect(entry.compiled).toBeUndefined();
      expect(entry.errors).toEqual([{ field: 'spec', message: 'GeneratingPolicy is not supported yet' }]);
      expect(store.generatingPolicies()).toEqual([]);
    });
  });
});
