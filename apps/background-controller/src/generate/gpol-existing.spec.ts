import { describe, expect, it } from 'vitest';
import { compileGeneratingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import type { UpdateRequest } from '../update-requests/update-request';
import { generateForExisting, type ExistingTriggerDeps } from './gpol-existing';

const policy = (namespace?: string, resources = ['configmaps']) =>
  compileGeneratingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
    metadata: { name: 'existing', uid: 'gpol-uid', generation: 1, ...(namespace ? { namespace } : {}) },
    spec: {
      evaluation: { generateExisting: { enabled: true } },
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources }],
      },
      generate: [{ expression: namespace ? 'generator.Apply([])' : 'generator.Apply("x", [])' }],
    },
  } as KubeObject);

function setup() {
  const cluster = new FakeCluster();
  const warnings: string[] = [];
  const deps: ExistingTriggerDeps = {
    cluster,
    kindOf: async (_apiVersion, resource) => ({ configmaps: 'ConfigMap' })[resource],
    namespace: 'kyverno',
    maxRequests: 10,
    warn: (message) => warnings.push(message),
  };
  const requests = () =>
    [...cluster.objects.values()].filter((object) => object.kind === 'UpdateRequest') as unknown as UpdateRequest[];
  for (const [namespace, name] of [
    ['a', 'one'],
    ['b', 'two'],
  ])
    cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
  return { cluster, deps, requests, warnings };
}

describe('generateForExisting', () => {
  it('makes one cel-generate UpdateRequest per existing trigger, once per policy version', async () => {
    const { deps, requests } = setup();
    expect(await generateForExisting(policy(), deps)).toBe(2);
    await generateForExisting(policy(), deps);
    const made = requests();
    expect(made).toHaveLength(2);
    expect(made.map((request) => [request.spec.requestType, request.spec.policy, request.spec.resource.name])).toEqual([
      ['cel-generate', 'existing', 'one'],
      ['cel-generate', 'existing', 'two'],
    ]);
    expect(made[0]?.metadata.namespace).toBe('kyverno');
    expect(made[0]?.spec.context.admissionRequestInfo.admissionRequest).toBeUndefined();
  });

  it('lists only the namespace of a NamespacedGeneratingPolicy', async () => {
    const { deps, requests } = setup();
    expect(await generateForExisting(policy('b'), deps)).toBe(1);
    expect(requests().map((request) => request.spec.policy)).toEqual(['b/existing']);
  });

  it('expands no wildcard and stops at the request cap', async () => {
    const { deps, requests, warnings } = setup();
    expect(await generateForExisting(policy(undefined, ['*']), deps)).toBe(0);
    expect(warnings[0]).toMatch(/wildcard/);
    expect(await generateForExisting(policy(), { ...deps, maxRequests: 1 })).toBe(1);
    expect(requests()).toHaveLength(1);
  });
});
