import { describe, expect, it } from 'vitest';
import { compileMutatingPolicy, type CompiledMutatingPolicy, type CompiledValidatingPolicy } from '@edict/cel-policies';
import type { CelPolicySource } from '@edict/controller-runtime';
import type { PolicySnapshot } from '@edict/policy';
import {
  changedPolicies,
  knownCelPolicies,
  knownPolicy,
  policyKeyOfLabel,
  policyLabelOf,
  policyVersions,
  resultPolicyKey,
  type KnownCelPolicy,
} from './known-policies';
import { knownNativePolicies, withNativePolicies } from './native-known-policies';

function validatingPolicy(name: string, namespace?: string, generation = 1): CompiledValidatingPolicy {
  return {
    policy: {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name, generation, resourceVersion: '12' },
    },
    kind: namespace ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy',
    name,
    ...(namespace ? { namespace } : {}),
    validationActions: ['Audit'],
    failurePolicy: 'Fail',
    admission: true,
    background: true,
    mode: 'Kubernetes',
    matchConstraints: {},
    matchConditions: [],
    autogen: [],
    autogenStatus: {},
  } as CompiledValidatingPolicy;
}

const emptySnapshot = { policies: new Map() } as unknown as PolicySnapshot;

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

  it('keys ValidatingPolicy results apart from a ClusterPolicy of the same name, by source', () => {
    expect(resultPolicyKey({ policy: 'require-team', source: 'kyverno' })).toBe('require-team');
    expect(resultPolicyKey({ policy: 'require-team', source: 'KyvernoValidatingPolicy' })).toBe('vpol:require-team');
    const cel = [validatingPolicy('require-team'), validatingPolicy('local', 'shop')];
    expect(knownPolicy(emptySnapshot, 'require-team', cel)).toBeUndefined();
    expect(knownPolicy(emptySnapshot, 'vpol:require-team', cel)).toEqual({
      kind: 'ValidatingPolicy',
      name: 'require-team',
      resourceVersion: '12',
    });
    expect(knownPolicy(emptySnapshot, 'vpol:shop/local', cel)).toMatchObject({
      kind: 'NamespacedValidatingPolicy',
      namespace: 'shop',
      name: 'local',
    });
    expect(knownPolicy(emptySnapshot, 'vpol:gone', cel)).toBeUndefined();
  });

  it('does not know a policy labelled reports.kyverno.io/disabled, so its older results are dropped', () => {
    const quiet = validatingPolicy('quiet');
    const labelled = {
      ...quiet,
      policy: {
        ...quiet.policy,
        metadata: { ...quiet.policy.metadata, labels: { 'reports.kyverno.io/disabled': '' } },
      },
    } as CompiledValidatingPolicy;
    expect(knownPolicy(emptySnapshot, 'vpol:quiet', [labelled])).toBeUndefined();
    const classic = {
      policies: new Map([
        [
          'quiet',
          {
            kind: 'ClusterPolicy',
            name: 'quiet',
            compiled: {
              policy: { metadata: { name: 'quiet', labels: { 'reports.kyverno.io/disabled': 'true' } }, spec: {} },
            },
          },
        ],
      ]),
    } as unknown as PolicySnapshot;
    expect(knownPolicy(classic, 'quiet')).toBeUndefined();
  });

  it("versions ValidatingPolicies by generation and labels them vpol.kyverno.io/<name>, as Kyverno's reports do", () => {
    expect(policyVersions(emptySnapshot, [validatingPolicy('a', undefined, 3)])).toEqual(
      new Map([['vpol:a', 'generation 3']]),
    );
    expect(policyLabelOf('vpol:a')).toEqual({ label: 'vpol.kyverno.io/a' });
    expect(policyLabelOf('vpol:shop/local')).toEqual({ label: 'vpol.kyverno.io/local', namespace: 'shop' });
    expect(policyKeyOfLabel('vpol.kyverno.io/a', 'shop')).toBe('vpol:a');
  });

  it('keys ImageValidatingPolicies apart from ValidatingPolicies of the same name, labelled ivpol.kyverno.io/<name>', () => {
    const image = (name: string, namespace?: string): KnownCelPolicy => ({
      kind: namespace ? 'NamespacedImageValidatingPolicy' : 'ImageValidatingPolicy',
      name,
      ...(namespace ? { namespace } : {}),
      policy: {
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'ImageValidatingPolicy',
        metadata: { name, generation: 2, resourceVersion: '7' },
      },
    });
    const cel = [validatingPolicy('check'), image('check'), image('local', 'shop')];
    expect(resultPolicyKey({ policy: 'check', source: 'KyvernoImageValidatingPolicy' })).toBe('ivpol:check');
    expect(knownPolicy(emptySnapshot, 'ivpol:check', cel)).toEqual({
      kind: 'ImageValidatingPolicy',
      name: 'check',
      resourceVersion: '7',
    });
    expect(knownPolicy(emptySnapshot, 'vpol:check', cel)).toMatchObject({ kind: 'ValidatingPolicy' });
    expect(knownPolicy(emptySnapshot, 'ivpol:shop/local', cel)).toMatchObject({
      kind: 'NamespacedImageValidatingPolicy',
      namespace: 'shop',
    });
    expect(policyVersions(emptySnapshot, [image('check')])).toEqual(new Map([['ivpol:check', 'generation 2']]));
    expect(policyLabelOf('ivpol:shop/local')).toEqual({ label: 'ivpol.kyverno.io/local', namespace: 'shop' });
    expect(policyKeyOfLabel('ivpol.kyverno.io/check', undefined)).toBe('ivpol:check');
  });

  it('keys MutatingPolicy results (source KyvernoMutatingPolicy) apart, labelled mpol.kyverno.io/<name>', () => {
    const mutating = (name: string, namespace?: string): CompiledMutatingPolicy =>
      compileMutatingPolicy({
        apiVersion: 'policies.kyverno.io/v1',
        kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
        metadata: { name, generation: 4, resourceVersion: '21', ...(namespace ? { namespace } : {}) },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
          mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
        },
      });
    const validating = [validatingPolicy('add')];
    const mutatingPolicies = [mutating('add'), mutating('local', 'shop')];
    const source: CelPolicySource = {
      validatingPolicies: () => validating,
      mutatingPolicies: () => mutatingPolicies,
      policyExceptions: () => [],
    };
    const cel = knownCelPolicies(source);
    // The same arrays give the same combined array (knownPolicy caches by it).
    expect(knownCelPolicies(source)).toBe(cel);
    expect(resultPolicyKey({ policy: 'add', source: 'KyvernoMutatingPolicy' })).toBe('mpol:add');
    expect(knownPolicy(emptySnapshot, 'mpol:add', cel)).toEqual({
      kind: 'MutatingPolicy',
      name: 'add',
      resourceVersion: '21',
    });
    expect(knownPolicy(emptySnapshot, 'vpol:add', cel)).toMatchObject({ kind: 'ValidatingPolicy' });
    expect(knownPolicy(emptySnapshot, 'mpol:shop/local', cel)).toMatchObject({
      kind: 'NamespacedMutatingPolicy',
      namespace: 'shop',
    });
    expect(policyVersions(emptySnapshot, cel).get('mpol:add')).toBe('generation 4');
    expect(policyLabelOf('mpol:shop/local')).toEqual({ label: 'mpol.kyverno.io/local', namespace: 'shop' });
    expect(policyKeyOfLabel('mpol.kyverno.io/add', 'shop')).toBe('mpol:add');
  });

  it('knows native policies by source, keyed apart from a ClusterPolicy of the same name, with their own labels', () => {
    const vap = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replicas', generation: 2, resourceVersion: '40' },
    };
    const map = { kind: 'MutatingAdmissionPolicy', metadata: { name: 'replicas', resourceVersion: '41' } };
    const native = knownNativePolicies({
      validating: [vap],
      validatingBindings: [],
      mutating: [map],
      mutatingBindings: [],
    });
    const cel: KnownCelPolicy[] = [];
    const all = withNativePolicies(cel, native);
    expect(withNativePolicies(cel, native)).toBe(all);
    expect(resultPolicyKey({ policy: 'replicas', source: 'ValidatingAdmissionPolicy' })).toBe('vap:replicas');
    expect(resultPolicyKey({ policy: 'replicas', source: 'MutatingAdmissionPolicy' })).toBe('map:replicas');
    expect(knownPolicy(emptySnapshot, 'vap:replicas', all)).toEqual({
      kind: 'ValidatingAdmissionPolicy',
      name: 'replicas',
      resourceVersion: '40',
    });
    expect(knownPolicy(emptySnapshot, 'map:replicas', all)).toMatchObject({ kind: 'MutatingAdmissionPolicy' });
    expect(knownPolicy(emptySnapshot, 'replicas', all)).toBeUndefined();
    expect(knownPolicy(emptySnapshot, 'vap:replicas', [])).toBeUndefined();
    expect(policyLabelOf('vap:replicas')).toEqual({ label: 'validatingadmissionpolicy.apiserver.io/replicas' });
    expect(policyLabelOf('map:replicas')).toEqual({ label: 'mutatingadmissionpolicy.apiserver.io/replicas' });
    expect(policyKeyOfLabel('mutatingadmissionpolicy.apiserver.io/replicas', 'default')).toBe('map:replicas');
    // Bindings label reports too, but name no policy whose results they hold.
    expect(policyKeyOfLabel('validatingadmissionpolicybinding.apiserver.io/b', 'default')).toBeUndefined();
    expect(policyVersions(emptySnapshot, all).get('vap:replicas')).toBe('generation 2');
  });

  it('keys GeneratingPolicies by source and labels them gpol.kyverno.io/<name>, from the source of CEL policies', () => {
    const generating = (name: string, namespace?: string) =>
      ({
        kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
        name,
        ...(namespace ? { namespace } : {}),
        policy: {
          apiVersion: 'policies.kyverno.io/v1',
          kind: 'GeneratingPolicy',
          metadata: { name, generation: 3, resourceVersion: '9' },
        },
      }) as never;
    // A cache answers the same arrays until its policies change.
    const validating = [validatingPolicy('zk')];
    const generatingPolicies = [generating('zk'), generating('local', 'shop')];
    const source = {
      validatingPolicies: () => validating,
      generatingPolicies: () => generatingPolicies,
      policyExceptions: () => [],
    };
    const cel = knownCelPolicies(source);
    expect(knownCelPolicies(source)).toBe(cel);
    expect(resultPolicyKey({ policy: 'zk', source: 'KyvernoGeneratingPolicy' })).toBe('gpol:zk');
    expect(knownPolicy(emptySnapshot, 'gpol:zk', cel)).toEqual({
      kind: 'GeneratingPolicy',
      name: 'zk',
      resourceVersion: '9',
    });
    expect(knownPolicy(emptySnapshot, 'vpol:zk', cel)).toMatchObject({ kind: 'ValidatingPolicy' });
    expect(knownPolicy(emptySnapshot, 'gpol:shop/local', cel)).toMatchObject({
      kind: 'NamespacedGeneratingPolicy',
      namespace: 'shop',
    });
    expect(policyVersions(emptySnapshot, cel).get('gpol:zk')).toBe('generation 3');
    expect(policyLabelOf('gpol:zk')).toEqual({ label: 'gpol.kyverno.io/zk' });
    expect(policyKeyOfLabel('gpol.kyverno.io/zk', undefined)).toBe('gpol:zk');
  });
});
