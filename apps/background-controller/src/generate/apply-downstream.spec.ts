import { describe, expect, it } from 'vitest';
import { KubeApiError } from '@edict/kube';
import { FakeCluster } from '../testing/fake-cluster';
import { applyDownstream, contains } from './apply-downstream';

const configMap = (data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team', labels: { 'app.kubernetes.io/managed-by': 'kyverno' } },
  data,
});

describe('applyDownstream', () => {
  it('creates what is missing and reports it as created', async () => {
    const cluster = new FakeCluster();
    const outcome = await applyDownstream([configMap({ a: '1' })], false, cluster);
    expect(outcome.created.map((object) => object.metadata?.name)).toEqual(['settings']);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1' });
  });

  it('leaves an existing object alone without synchronize', async () => {
    const cluster = new FakeCluster();
    cluster.put(configMap({ a: 'edited' }));
    const outcome = await applyDownstream([configMap({ a: '1' })], false, cluster);
    expect(outcome).toEqual({ created: [], updated: [] });
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: 'edited' });
  });

  it('with synchronize, updates an object that differs and leaves one that matches', async () => {
    const cluster = new FakeCluster();
    cluster.put(configMap({ a: 'edited' }));
    const first = await applyDownstream([configMap({ a: '1' })], true, cluster);
    expect(first.updated).toHaveLength(1);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1' });
    const writes = cluster.writes.length;
    const second = await applyDownstream([configMap({ a: '1' })], true, cluster);
    expect(second).toEqual({ created: [], updated: [] });
    expect(cluster.writes).toHaveLength(writes);
  });

  it('with server-side apply, sets the rule’s fields and keeps fields others added', async () => {
    const cluster = new FakeCluster();
    cluster.put(configMap({ a: 'edited', b: 'added by a user' }));
    await applyDownstream([configMap({ a: '1' })], true, cluster, true);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1', b: 'added by a user' });
    await applyDownstream([configMap({ a: '1' })], true, cluster, false);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1', b: 'added by a user' });
    cluster.put(configMap({ a: 'edited', b: 'added by a user' }));
    await applyDownstream([configMap({ a: '1' })], true, cluster, false);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1' });
  });

  it('treats a create that lost the race to another leader as an existing object', async () => {
    const cluster = new FakeCluster();
    const original = cluster.create.bind(cluster);
    cluster.create = async (object) => {
      cluster.put(configMap({ a: 'other leader' }));
      return original(object);
    };
    const outcome = await applyDownstream([configMap({ a: '1' })], false, cluster);
    expect(outcome).toEqual({ created: [], updated: [] });
    expect([...cluster.objects.values()]).toHaveLength(1);
  });

  it('reads again and retries an update that conflicted, and gives a lasting error back', async () => {
    const cluster = new FakeCluster();
    cluster.put(configMap({ a: 'edited' }));
    cluster.failNextWrites.push(new KubeApiError(409, 'Conflict', 'changed meanwhile'));
    await applyDownstream([configMap({ a: '1' })], true, cluster);
    expect(cluster.find('v1', 'ConfigMap', 'settings', 'team')?.data).toEqual({ a: '1' });
    cluster.failNextWrites.push(new KubeApiError(403, 'Forbidden', 'no'));
    await expect(applyDownstream([configMap({ a: '2' })], true, cluster)).rejects.toThrow('no');
  });
});

describe('contains', () => {
  it('compares the wanted fields only, arrays whole', () => {
    expect(contains({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(contains({ a: [1, 2] }, { a: [1] })).toBe(false);
    expect(contains({ a: [{ x: 1, y: 2 }] }, { a: [{ x: 1 }] })).toBe(true);
    expect(contains({ a: '1' }, { a: 1 })).toBe(false);
  });
});
