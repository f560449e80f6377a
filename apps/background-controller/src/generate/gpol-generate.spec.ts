import { describe, expect, it } from 'vitest';
import { compileGeneratingPolicy, LABEL_TRIGGER_NAME, type GeneratingPolicySpec } from '@edict/cel-policies';
import { LABEL_POLICY_NAME, LABEL_TRIGGER_UID } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import { generateForTrigger, type GpolGenerateDeps } from './gpol-generate';

const namespaceTrigger = (cluster: FakeCluster, name: string) =>
  cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team: 'a' } } });

const configMap = (namespace: string, name = 'zk-kafka-address') =>
  `generator.Apply(${namespace}, [{"kind": dyn("ConfigMap"), "apiVersion": dyn("v1"), "metadata": dyn({"name": "${name}"}), "data": dyn({"key": object.metadata.name})}])`;

const generatingPolicy = (name: string, spec: GeneratingPolicySpec, namespace?: string): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: spec as KubeObject['spec'],
});

function policy(spec: Partial<GeneratingPolicySpec> = {}, namespace?: string) {
  return compileGeneratingPolicy(
    generatingPolicy(
      'gen-cm',
      {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['namespaces'] },
          ],
        },
        generate: [{ expression: configMap('object.metadata.name') }],
        ...spec,
      },
      namespace,
    ),
  );
}

function deps(cluster: FakeCluster): GpolGenerateDeps {
  return {
    cluster,
    ports: {},
    exceptions: () => [],
    namespaceObject: async (name) => cluster.find('v1', 'Namespace', name),
    resourceOf: async (_apiVersion, kind) =>
      ({ Namespace: 'namespaces', ConfigMap: 'configmaps', Secret: 'secrets' })[kind],
  };
}

describe('generateForTrigger', () => {
  it('creates the downstream objects with the labels naming the policy and the trigger', async () => {
    const cluster = new FakeCluster();
    const trigger = namespaceTrigger(cluster, 'team-a');
    const outcome = await generateForTrigger(policy(), trigger, deps(cluster));
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.status).toBe('pass');
    const created = cluster.find('v1', 'ConfigMap', 'zk-kafka-address', 'team-a');
    expect(created?.data).toEqual({ key: 'team-a' });
    expect(created?.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'kyverno',
      [LABEL_POLICY_NAME]: 'gen-cm',
      [LABEL_TRIGGER_NAME]: 'team-a',
      [LABEL_TRIGGER_UID]: trigger.metadata.uid,
    });
    expect(outcome.generated.map((object) => object.metadata.name)).toEqual(['zk-kafka-address']);
  });

  it('answers nothing when the policy does not match the trigger', async () => {
    const cluster = new FakeCluster();
    const trigger = cluster.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } });
    const outcome = await generateForTrigger(policy(), trigger, deps(cluster));
    expect(outcome).toEqual({ generated: [] });
    expect(cluster.writes).toEqual([]);
  });

  it('updates its own downstream in place and leaves an object it did not generate alone', async () => {
    const cluster = new FakeCluster();
    const trigger = namespaceTrigger(cluster, 'team-a');
    await generateForTrigger(policy(), trigger, deps(cluster));
    const stored = cluster.find('v1', 'ConfigMap', 'zk-kafka-address', 'team-a')!;
    cluster.put({ ...stored, data: { key: 'edited' } });
    const again = await generateForTrigger(policy(), trigger, deps(cluster));
    expect(again.error).toBeUndefined();
    expect(cluster.find('v1', 'ConfigMap', 'zk-kafka-address', 'team-a')?.data).toEqual({ key: 'team-a' });

    const other = namespaceTrigger(cluster, 'team-b');
    cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zk-kafka-address', namespace: 'team-b' } });
    const mine = await generateForTrigger(policy(), other, deps(cluster));
    expect(mine.generated).toEqual([]);
    expect(cluster.find('v1', 'ConfigMap', 'zk-kafka-address', 'team-b')?.data).toBeUndefined();
  });

  it('reports an evaluation error and writes nothing', async () => {
    const cluster = new FakeCluster();
    const trigger = namespaceTrigger(cluster, 'team-a');
    const outcome = await generateForTrigger(
      policy({ generate: [{ expression: 'generator.Apply(object.metadata.name, [object.missing])' }] }),
      trigger,
      deps(cluster),
    );
    expect(outcome.result?.status).toBe('error');
    expect(outcome.error).toMatch(/failed to evaluate policy/);
    expect(cluster.writes).toEqual([]);
  });

  it('keeps a NamespacedGeneratingPolicy in its namespace', async () => {
    const cluster = new FakeCluster();
    const secret = (namespace: string): KubeObject =>
      cluster.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'trigger', namespace } });
    const confined = policy(
      {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }],
        },
        generate: [
          {
            expression:
              'generator.Apply([{"kind": dyn("ConfigMap"), "apiVersion": dyn("v1"), "metadata": dyn({"name": "cm", "namespace": "other"})}])',
          },
        ],
      },
      'tenant',
    );
    expect(await generateForTrigger(confined, secret('elsewhere'), deps(cluster))).toEqual({ generated: [] });
    const outcome = await generateForTrigger(confined, secret('tenant'), deps(cluster));
    expect(outcome.error).toBeUndefined();
    expect(cluster.find('v1', 'ConfigMap', 'cm', 'tenant')).toBeDefined();
    expect(cluster.find('v1', 'ConfigMap', 'cm', 'other')).toBeUndefined();

    const clusterScoped = policy(
      {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }],
        },
        generate: [
          {
            expression:
              'generator.Apply([{"kind": dyn("ClusterRole"), "apiVersion": dyn("rbac.authorization.k8s.io/v1"), "metadata": dyn({"name": "escalate"})}])',
          },
        ],
      },
      'tenant',
    );
    const refused = await generateForTrigger(clusterScoped, secret('tenant'), deps(cluster));
    expect(refused.error).toMatch(/cross-scope generation denied/);
    expect(cluster.find('rbac.authorization.k8s.io/v1', 'ClusterRole', 'escalate')).toBeUndefined();
  });
});
