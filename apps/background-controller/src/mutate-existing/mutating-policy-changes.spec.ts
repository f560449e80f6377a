import { describe, expect, it } from 'vitest';
import { compileMutatingPolicy, type CompiledMutatingPolicy } from '@edict/cel-policies';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import {
  createPolicyChangeRequest,
  MutatingPolicyChangeTracker,
  policyChangeRequests,
} from './mutating-policy-changes';
import type { ServedResource } from './resource-rule-objects';

const SERVED: Record<string, ServedResource> = {
  'v1/configmaps': { kind: 'ConfigMap', namespaced: true },
  'v1/secrets': { kind: 'Secret', namespaced: true },
};

const rules = (resource: string) => ({
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: [resource] }],
});

const mutations = [
  {
    patchType: 'ApplyConfiguration',
    applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
  },
];

function policy(name: string, spec: JsonObject, options: { namespace?: string; generation?: number } = {}) {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: options.namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: {
      name,
      uid: `${name}-uid`,
      generation: options.generation ?? 1,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    },
    spec: { evaluation: { mutateExisting: { enabled: true } }, mutations, ...spec },
  } as unknown as KubeObject);
}

function cluster() {
  const fake = new FakeCluster();
  for (const [namespace, name] of [
    ['team-a', 'one'],
    ['team-b', 'two'],
  ] as const) {
    fake.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } });
  }
  return fake;
}

const deps = (fake: FakeCluster) => ({
  cluster: fake,
  resourceNamed: async (apiVersion: string, plural: string) => SERVED[`${apiVersion}/${plural}`],
  namespace: 'kyverno',
});

describe('policyChangeRequests', () => {
  it('asks one request without a trigger for a policy whose targets are its triggers', async () => {
    const { requests, failures } = await policyChangeRequests(
      policy('same', { matchConstraints: rules('secrets') }),
      deps(cluster()),
    );
    expect(failures).toEqual([]);
    expect(
      requests.map((request) => [request.metadata.namespace, request.spec.policy, request.spec.requestType]),
    ).toEqual([['kyverno', 'same', 'cel-mutate']]);
    expect(requests[0]?.spec.context.admissionRequestInfo).toEqual({});
  });

  it('asks nothing for targets named by resource rules apart from the triggers, nor without mutateExisting', async () => {
    const separate = policy('separate', {
      matchConstraints: rules('secrets'),
      targetMatchConstraints: rules('configmaps'),
    });
    const disabled = policy('disabled', {
      matchConstraints: rules('secrets'),
      evaluation: { mutateExisting: { enabled: false } },
    });
    expect((await policyChangeRequests(separate, deps(cluster()))).requests).toEqual([]);
    expect((await policyChangeRequests(disabled, deps(cluster()))).requests).toEqual([]);
  });

  it('asks one request per existing trigger, with its UPDATE admission request, for a target expression', async () => {
    const byExpression = (namespace?: string) =>
      policy(
        'expr',
        {
          matchConstraints: rules('secrets'),
          targetMatchConstraints: {
            ...rules('configmaps'),
            expression: 'object',
          },
        },
        namespace ? { namespace } : {},
      );
    const { requests } = await policyChangeRequests(byExpression(), deps(cluster()));
    expect(
      requests.map((request) => [request.spec.policy, request.spec.resource.namespace, request.spec.resource.name]),
    ).toEqual([
      ['expr', 'team-a', 'one'],
      ['expr', 'team-b', 'two'],
    ]);
    const admission = requests[0]?.spec.context.admissionRequestInfo.admissionRequest;
    expect(admission).toMatchObject({
      operation: 'UPDATE',
      kind: { group: '', version: 'v1', kind: 'Secret' },
      resource: { group: '', version: 'v1', resource: 'secrets' },
      namespace: 'team-a',
      name: 'one',
    });
    const namespaced = await policyChangeRequests(byExpression('team-b'), deps(cluster()));
    expect(namespaced.requests.map((request) => [request.spec.policy, request.spec.resource.name])).toEqual([
      ['team-b/expr', 'two'],
    ]);
  });

  it('names requests from the policy version, so the same change creates each once and a new version again', async () => {
    const fake = cluster();
    const v1 = policy('same', { matchConstraints: rules('secrets') });
    const [first] = (await policyChangeRequests(v1, deps(fake))).requests;
    const [again] = (await policyChangeRequests(v1, deps(fake))).requests;
    expect(await createPolicyChangeRequest(fake, first!)).toBe(true);
    expect(await createPolicyChangeRequest(fake, again!)).toBe(false);
    const [next] = (
      await policyChangeRequests(policy('same', { matchConstraints: rules('secrets') }, { generation: 2 }), deps(fake))
    ).requests;
    expect(next?.metadata.name).not.toBe(first?.metadata.name);
  });
});

describe('MutatingPolicyChangeTracker', () => {
  it('reports every mutate-existing policy at first, then only those created or whose spec changed', () => {
    const tracker = new MutatingPolicyChangeTracker();
    const a = policy('a', { matchConstraints: rules('secrets') });
    const off = policy('off', {
      matchConstraints: rules('secrets'),
      evaluation: { mutateExisting: { enabled: false } },
    });
    const names = (changed: CompiledMutatingPolicy[]) => changed.map((compiled) => compiled.name);
    expect(names(tracker.observe([a, off]))).toEqual(['a']);
    expect(names(tracker.observe([a, off]))).toEqual([]);
    const changed = policy('a', { matchConstraints: rules('configmaps') });
    const b = policy('b', { matchConstraints: rules('secrets') });
    expect(names(tracker.observe([changed, b, off]))).toEqual(['a', 'b']);
  });
});
