import { describe, expect, it } from 'vitest';
import type { CompiledValidatingPolicy } from '@edict/cel-policies';
import type { PolicySnapshot } from '@edict/policy';
import {
  changedPolicies,
  knownPolicy,
  policyKeyOfLabel,
  policyLabelOf,
  policyVersions,
  reportedCelPolicies,
  resultPolicyKey,
  type KnownCelPolicy,
} from './known-policies';

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
    const cel = reportedCelPolicies(source);
    expect(reportedCelPolicies(source)).toBe(cel);
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
