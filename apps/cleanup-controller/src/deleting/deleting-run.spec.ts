import { describe, expect, it } from 'vitest';
import { compileCelPolicyException, compileDeletingPolicy, type CelPolicyContext } from '@edict/cel-policies';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { KubeApiError } from '@edict/kube';
import type { ObjectType } from '../cluster/cleanup-cluster';
import { FakeCleanupCluster, POD_TYPE, pod } from '../testing/fake-cleanup-cluster';
import { runDeletingPolicy } from './deleting-run';

const NODE_TYPE: ObjectType = { ...POD_TYPE, kind: 'Node', resource: 'nodes', namespaced: false };

function dpol(spec: JsonObject, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
    metadata: { name: 'p', ...(namespace ? { namespace } : {}) },
    spec: {
      schedule: '*/1 * * * *',
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods', 'nodes'] },
        ],
      },
      ...spec,
    },
  } as KubeObject;
}

async function run(policy: KubeObject, cluster: FakeCleanupCluster, context: CelPolicyContext = { ports: {} }) {
  const reports: string[] = [];
  const failures: string[] = [];
  const result = await runDeletingPolicy(compileDeletingPolicy(policy), {
    cluster,
    context,
    maxTargets: 100,
    report: (target, error) => reports.push(`${target.metadata?.name}${error ? `: ${error}` : ''}`),
    failed: (kind, namespace, error) => failures.push(`${kind} ${namespace ?? ''}: ${error}`),
  });
  return { result, reports, failures };
}

const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `uid-${name}` } });

describe('runDeletingPolicy', () => {
  it('deletes what matches and whose conditions hold, with the propagation policy, and leaves the rest', async () => {
    const cluster = new FakeCleanupCluster([pod('old'), pod('new'), node('old')], [POD_TYPE, NODE_TYPE]);
    const policy = dpol({
      deletionPropagationPolicy: 'Orphan',
      conditions: [{ name: 'old', expression: 'object.metadata.name == "old"' }],
    });
    const { result, reports } = await run(policy, cluster);
    expect(result).toEqual({ deleted: 2, failed: 0 });
    expect(reports).toEqual(['old', 'old']);
    expect(cluster.deletions).toEqual([
      { name: 'old', propagation: 'Orphan' },
      { name: 'old', propagation: 'Orphan' },
    ]);
    expect(cluster.objects.map((o) => o.metadata?.name)).toEqual(['new']);
  });

  it('is idempotent: a second run finds nothing left to delete and reports nothing', async () => {
    const cluster = new FakeCleanupCluster([pod('a'), pod('b')]);
    const policy = dpol({});
    expect((await run(policy, cluster)).result).toEqual({ deleted: 2, failed: 0 });
    const again = await run(policy, cluster);
    expect(again.result).toEqual({ deleted: 0, failed: 0 });
    expect(again.reports).toEqual([]);
  });

  it('keeps a NamespacedDeletingPolicy in its namespace and away from cluster-scoped kinds', async () => {
    const cluster = new FakeCleanupCluster([pod('a', 'team'), pod('b', 'other'), node('n')], [POD_TYPE, NODE_TYPE]);
    const { result } = await run(dpol({}, 'team'), cluster);
    expect(result).toEqual({ deleted: 1, failed: 0 });
    expect(cluster.objects.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`)).toEqual([
      'Pod/other/b',
      'Node//n',
    ]);
  });

  it('reads namespaceObject and honours the namespace selector', async () => {
    const cluster = new FakeCleanupCluster([pod('a', 'dev'), pod('b', 'prod')]);
    cluster.namespaces.dev = { env: 'dev' };
    cluster.namespaces.prod = { env: 'prod' };
    const policy = dpol({
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Exists' }] },
      },
      conditions: [{ name: 'dev', expression: 'namespaceObject.metadata.labels.env == "dev"' }],
    });
    await run(policy, cluster);
    expect(cluster.objects.map((o) => o.metadata?.name)).toEqual(['b']);
  });

  it('reports a failed deletion and a condition that errors, and goes on with the others', async () => {
    const cluster = new FakeCleanupCluster([pod('stuck'), pod('gone'), pod('broken', 'weird')]);
    cluster.failing.add('stuck');
    const policy = dpol({
      conditions: [{ name: 'ns', expression: 'object.metadata.namespace == "default" || object.spec.nope' }],
    });
    const { result, reports, failures } = await run(policy, cluster);
    expect(result).toEqual({ deleted: 1, failed: 2 });
    expect(reports).toEqual(['stuck: pods "stuck" is forbidden', 'gone']);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain("condition 'ns'");
    expect(cluster.objects.map((o) => o.metadata?.name)).toEqual(['stuck', 'broken']);
  });

  it('deletes nothing of a kind it may not list, says which permission is missing, and goes on with the others', async () => {
    class ForbiddenPods extends FakeCleanupCluster {
      override async list(type: ObjectType, namespace: string | undefined, limit: number) {
        if (type.kind === 'Pod') {
          throw new KubeApiError(403, 'Forbidden', 'pods is forbidden: User "cleanup" cannot list resource "pods"');
        }
        return super.list(type, namespace, limit);
      }
    }
    const cluster = new ForbiddenPods([pod('old'), node('old')], [POD_TYPE, NODE_TYPE]);
    const { result, failures } = await run(dpol({}), cluster);
    expect(result).toEqual({ deleted: 1, failed: 1 });
    expect(failures).toEqual([
      'Pod : cleanup controller has no permission to list kind Pod, nothing of this kind deleted: pods is forbidden: User "cleanup" cannot list resource "pods"',
    ]);
    expect(cluster.objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['Pod/old']);
  });

  it('leaves objects a CEL PolicyException covers', async () => {
    const cluster = new FakeCleanupCluster([pod('keep-me'), pod('drop-me')]);
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'keep', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'p', kind: 'DeletingPolicy' }],
        matchConditions: [{ name: 'keep', expression: 'object.metadata.name == "keep-me"' }],
      },
    } as unknown as KubeObject);
    await run(dpol({}), cluster, { ports: {}, exceptions: [exception] });
    expect(cluster.objects.map((o) => o.metadata?.name)).toEqual(['keep-me']);
  });
});
