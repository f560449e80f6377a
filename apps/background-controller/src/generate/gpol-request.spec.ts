import { describe, expect, it } from 'vitest';
import type { UpdateRequestSpec } from '@edict/admission';
import { compileGeneratingPolicy } from '@edict/cel-policies';
import type { EventInput } from '@edict/kube';
import { FakeCluster } from '../testing/fake-cluster';
import { UpdateRequestProcessor } from '../update-requests/update-request-processor';
import type { UpdateRequest } from '../update-requests/update-request';
import type { GpolRequestDeps } from './gpol-request';

const compiled = compileGeneratingPolicy({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'GeneratingPolicy',
  metadata: { name: 'zk-kafka-address', uid: 'gpol-uid' },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['namespaces'] },
      ],
    },
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.name, [{"kind": dyn("ConfigMap"), "apiVersion": dyn("v1"), "metadata": dyn({"name": "zk"}), "data": dyn({"ns": object.metadata.labels.missing})}])',
      },
    ],
  },
});
const working = compileGeneratingPolicy({
  ...compiled.policy,
  metadata: { name: 'working', uid: 'gpol-2' },
  spec: {
    ...(compiled.policy.spec as object),
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.name, [{"kind": dyn("ConfigMap"), "apiVersion": dyn("v1"), "metadata": dyn({"name": "zk"}), "data": dyn({"ns": object.metadata.name})}])',
      },
    ],
  },
});

function setup() {
  const cluster = new FakeCluster();
  const events: EventInput[] = [];
  const policies = [compiled, working];
  const generating: GpolRequestDeps = {
    ports: {},
    exceptions: () => [],
    generatingPolicy: (key) => policies.find((policy) => policy.name === key),
    namespaceObject: async (name) => cluster.find('v1', 'Namespace', name),
    resourceOf: async (_apiVersion, kind) => (kind === 'Namespace' ? 'namespaces' : undefined),
  };
  const processor = new UpdateRequestProcessor(
    {
      engine: {} as never,
      cluster,
      namespaceLabels: async () => undefined,
      emit: (_source, event) => events.push(event),
      generateSuccessEvents: () => true,
      policy: () => undefined,
      report: async () => undefined,
      generating,
    },
    { namespace: 'kyverno', maxRetries: 3, admissionWaitMs: 0 },
  );
  const request = (name: string, policy: string) => {
    const trigger = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a' };
    const spec: UpdateRequestSpec = {
      requestType: 'cel-generate',
      policy,
      rule: '',
      deleteDownstream: false,
      ruleContext: [{ rule: policy, deleteDownstream: false, trigger }],
      resource: trigger,
      context: { userInfo: { userInfo: {} }, admissionRequestInfo: {} },
    };
    return cluster.put({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { name, namespace: 'kyverno' },
      spec,
    });
  };
  const stored = (name: string) =>
    cluster.find('kyverno.io/v2', 'UpdateRequest', name, 'kyverno') as UpdateRequest | undefined;
  return { cluster, events, processor, request, stored };
}

describe('cel-generate UpdateRequests', () => {
  it('generates the downstream, completes the request and announces the object', async () => {
    const { cluster, events, processor, request, stored } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    request('ur-1', 'working');
    expect(await processor.step('ur-1')).toEqual({ kind: 'completed' });
    expect(stored('ur-1')).toBeUndefined();
    expect(cluster.find('v1', 'ConfigMap', 'zk', 'team-a')?.data).toEqual({ ns: 'team-a' });
    expect(events.map((event) => [event.reason, event.regarding.kind])).toEqual([
      ['PolicyApplied', 'GeneratingPolicy'],
      ['PolicyApplied', 'ConfigMap'],
    ]);
    expect(events[0]?.regarding.apiVersion).toBe('policies.kyverno.io/v1');
  });

  it('fails the request with the cause and a PolicyError Event when the evaluation fails', async () => {
    const { cluster, events, processor, request, stored } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    request('ur-2', 'zk-kafka-address');
    const step = await processor.step('ur-2');
    expect(step).toMatchObject({ kind: 'failed', retryCount: 1 });
    expect(stored('ur-2')?.status).toMatchObject({ state: 'Failed', retryCount: 1 });
    expect(stored('ur-2')?.status?.message).toMatch(/^gpol zk-kafka-address failed: failed to evaluate policy/);
    expect(events.map((event) => event.reason)).toEqual(['PolicyError']);
    expect(cluster.find('v1', 'ConfigMap', 'zk', 'team-a')).toBeUndefined();
  });

  it('fails when the trigger or the policy is missing', async () => {
    const { processor, request, stored } = setup();
    request('ur-3', 'working');
    await processor.step('ur-3');
    expect(stored('ur-3')?.status?.message).toMatch(/failed to fetch trigger resource/);
    request('ur-4', 'gone');
    await processor.step('ur-4');
    expect(stored('ur-4')?.status?.message).toBe('gpol gone failed: policy gone not found');
  });
});
