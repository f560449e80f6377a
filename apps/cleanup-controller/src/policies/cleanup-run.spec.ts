import { describe, expect, it } from 'vitest';
import type { CleanupPolicy, ContextLoaders } from '@edict/engine';
import { FakeCleanupCluster, POD_TYPE, pod } from '../testing/fake-cleanup-cluster';
import { runCleanupPolicy } from './cleanup-run';

const noLoaders = {} as ContextLoaders;

function policy(spec: Partial<CleanupPolicy['spec']>, namespace?: string): CleanupPolicy {
  return {
    apiVersion: 'kyverno.io/v2',
    kind: namespace ? 'CleanupPolicy' : 'ClusterCleanupPolicy',
    metadata: { name: 'p', ...(namespace ? { namespace } : {}) },
    spec: { schedule: '*/1 * * * *', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...spec },
  };
}

async function run(p: CleanupPolicy, cluster: FakeCleanupCluster) {
  const reports: string[] = [];
  const result = await runCleanupPolicy(p, {
    cluster,
    loaders: noLoaders,
    maxTargets: 100,
    report: (target, error) => reports.push(`${target.metadata?.name}${error ? `: ${error}` : ''}`),
  });
  return { result, reports };
}

describe('runCleanupPolicy', () => {
  it('deletes what match selects and the conditions on target keep, and leaves the others', async () => {
    const cluster = new FakeCleanupCluster([pod('example'), pod('other'), pod('example', 'team')]);
    const conditions = {
      all: [
        { key: '{{ target.metadata.name }}', operator: 'Equals' as const, value: 'example' },
        { key: '{{ target.metadata.namespace }}', operator: 'Equals' as const, value: 'default' },
      ],
    };
    const { result, reports } = await run(policy({ conditions, deletionPropagationPolicy: 'Foreground' }), cluster);
    expect(result).toEqual({ deleted: 1, failed: 0 });
    expect(reports).toEqual(['example']);
    expect(cluster.deletions).toEqual([{ name: 'example', propagation: 'Foreground' }]);
    expect(cluster.objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual([
      'default/other',
      'team/example',
    ]);
  });

  it('honours exclude and label selectors, ignores operations, and keeps a CleanupPolicy in its namespace', async () => {
    const cluster = new FakeCleanupCluster([
      pod('a', 'team', { app: 'web' }),
      pod('b', 'team', { app: 'db' }),
      pod('c', 'team', { app: 'web', keep: 'yes' }),
      pod('d', 'default', { app: 'web' }),
    ]);
    const match = {
      any: [
        { resources: { kinds: ['Pod'], operations: ['DELETE' as const], selector: { matchLabels: { app: 'web' } } } },
      ],
    };
    const exclude = { any: [{ resources: { selector: { matchLabels: { keep: 'yes' } } } }] };
    const { result } = await run(policy({ match, exclude }, 'team'), cluster);
    expect(result).toEqual({ deleted: 1, failed: 0 });
    expect(cluster.deletions.map((d) => d.name)).toEqual(['a']);
  });

  it("refuses a CleanupPolicy deleting Kyverno's own kinds in its namespace, and any cluster-scoped kind", async () => {
    const policyType = {
      ...POD_TYPE,
      apiVersion: 'kyverno.io/v1',
      group: 'kyverno.io',
      resource: 'policies',
      kind: 'Policy',
    };
    const namespaceType = { ...POD_TYPE, resource: 'namespaces', kind: 'Namespace', namespaced: false };
    const guard = {
      apiVersion: 'kyverno.io/v1',
      kind: 'Policy',
      metadata: { name: 'guard', namespace: 'team', uid: 'g' },
    };
    const team = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'n' } };
    const cluster = new FakeCleanupCluster([guard, team, pod('a', 'team')], [POD_TYPE, policyType, namespaceType]);
    const match = { any: [{ resources: { kinds: ['Pod', 'Policy', 'Namespace'] } }] };
    const { result, reports } = await run(policy({ match }, 'team'), cluster);
    expect(result).toEqual({ deleted: 1, failed: 1 });
    expect(cluster.deletions.map((d) => d.name)).toEqual(['a']);
    expect(reports).toEqual([
      'a',
      `guard: CleanupPolicy team/p may not delete kyverno.io/v1/Policy team/guard: a namespaced policy writes only namespaced objects of its own namespace "team" (Kyverno's own kinds (kyverno.io, policies.kyverno.io, reports.kyverno.io, wgpolicyk8s.io) are written only for cluster-wide policies)`,
    ]);
    expect(cluster.objects).toContain(team);
  });

  it('reports a deletion that fails and goes on with the other objects', async () => {
    const cluster = new FakeCleanupCluster([pod('x'), pod('y')]);
    cluster.failing.add('x');
    const { result, reports } = await run(policy({}), cluster);
    expect(result).toEqual({ deleted: 1, failed: 1 });
    expect(reports).toEqual(['x: pods "x" is forbidden', 'y']);
  });

  it('reports an object whose conditions cannot be evaluated, and deletes nothing for it', async () => {
    const cluster = new FakeCleanupCluster([pod('x')]);
    const conditions = { any: [{ key: '{{ missing.value }}', operator: 'Equals' as const, value: 'x' }] };
    const { result, reports } = await run(policy({ conditions }), cluster);
    expect(result).toEqual({ deleted: 0, failed: 1 });
    expect(reports[0]).toMatch(/^x: .*missing/);
  });
});
