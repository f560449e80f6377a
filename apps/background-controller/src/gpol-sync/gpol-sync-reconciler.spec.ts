import { describe, expect, it } from 'vitest';
import { LABEL_TRIGGER_UID } from '@edict/engine';
import { FakeCluster } from '../testing/fake-cluster';
import { CM, FakeGpolGeneration, gpol, gpolLabels as labelsFor } from '../testing/fake-gpol-generation';
import { DownstreamRecord } from './downstream-record';
import { triggerOf } from './gpol-downstream';
import { GpolSyncReconciler } from './gpol-sync-reconciler';

function setup() {
  const cluster = new FakeCluster();
  const generation = new FakeGpolGeneration(cluster);
  const record = new DownstreamRecord(100);
  const reconciler = new GpolSyncReconciler({ cluster, generation, record, log: () => undefined });
  const trigger = cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: trigger.metadata.uid! };
  return { cluster, generation, record, reconciler, trigger, ref };
}

const configMaps = (cluster: FakeCluster) =>
  [...cluster.objects.values()].filter((object) => object.kind === 'ConfigMap').map((object) => object.metadata?.name);

describe('GpolSyncReconciler.reconcileTrigger', () => {
  it('generates the downstream and records it; twice in a row gives the same single object', async () => {
    const { cluster, reconciler, record, ref } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    const first = await reconciler.reconcileTrigger(policy, ref, [CM]);
    const second = await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(configMaps(cluster)).toEqual(['generated']);
    expect(first.downstream).toHaveLength(1);
    expect(second).toMatchObject({ deleted: 0 });
    expect(record.unchanged(cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!)).toBe(true);
  });

  it('restores a modified downstream, which the record tells from the one it left', async () => {
    const { cluster, reconciler, record, ref } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    const stored = cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!;
    const modified = await cluster.replace({ ...stored, data: { key: 'changed' } });
    expect(record.unchanged(modified)).toBe(false);
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!.data).toEqual({ key: 'value' });
  });

  it('recreates a deleted downstream', async () => {
    const { cluster, reconciler, ref } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    await cluster.delete({ ...CM, name: 'generated', namespace: 'team-a' });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(configMaps(cluster)).toEqual(['generated']);
  });

  it('deletes what the policy no longer asks for (a new name) and keeps what it does', async () => {
    const { cluster, generation, reconciler, ref } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    generation.names = () => ['renamed'];
    const outcome = await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(outcome.deleted).toBe(1);
    expect(configMaps(cluster)).toEqual(['renamed']);
  });

  it('a trigger that no longer matches loses its downstream; an exception leaves it alone', async () => {
    const { cluster, generation, reconciler, ref } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    generation.skipped = true;
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(configMaps(cluster)).toEqual(['generated']);
    generation.skipped = false;
    generation.matches = false;
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(configMaps(cluster)).toEqual([]);
  });

  it('a deleted trigger, or one replaced under the same name, loses its downstream without a generation', async () => {
    const { cluster, generation, reconciler, ref, trigger } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    await reconciler.reconcileTrigger(policy, ref, [CM]);
    await cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'team-a' });
    cluster.put({ ...trigger, metadata: { name: 'team-a', uid: 'another-uid' } });
    const calls = generation.calls;
    const outcome = await reconciler.reconcileTrigger(policy, ref, [CM]);
    expect(outcome.deleted).toBe(1);
    expect(generation.calls).toBe(calls);
    expect(configMaps(cluster)).toEqual([]);
  });

  it('leaves the downstream of another policy and of another trigger alone', async () => {
    const { cluster, reconciler, ref, trigger } = setup();
    const policy = gpol('sync', { synchronize: { enabled: true } });
    const other = cluster.put({
      ...CM,
      metadata: { name: 'other-policy', namespace: 'team-a', labels: labelsFor('other', trigger) },
    });
    const otherTrigger = cluster.put({
      ...CM,
      metadata: {
        name: 'other-trigger',
        namespace: 'team-a',
        labels: { ...labelsFor('sync', trigger), [LABEL_TRIGGER_UID]: 'x' },
      },
    });
    await reconciler.reconcileTrigger(policy, { ...ref, uid: 'gone' }, [CM]);
    expect(configMaps(cluster)).toEqual([other.metadata.name, otherTrigger.metadata.name]);
  });
});

describe('GpolSyncReconciler on policy deletion', () => {
  async function generated() {
    const context = setup();
    const { cluster, trigger } = context;
    cluster.put({ ...CM, metadata: { name: 'data', namespace: 'team-a', labels: labelsFor('sync', trigger) } });
    cluster.put({
      ...CM,
      metadata: { name: 'clone', namespace: 'team-a', labels: labelsFor('sync', trigger, 'src-uid') },
    });
    return context;
  }

  it('deletes the generated data of a synchronized policy, not the clones', async () => {
    const { cluster, reconciler } = await generated();
    expect(await reconciler.policyDeleted(gpol('sync', { synchronize: { enabled: true } }), [CM])).toBe(1);
    expect(configMaps(cluster)).toEqual(['clone']);
  });

  it('keeps everything when the policy orphans its downstream or does not synchronize', async () => {
    const { cluster, reconciler } = await generated();
    const orphan = gpol('sync', { synchronize: { enabled: true }, orphanDownstreamOnPolicyDelete: { enabled: true } });
    expect(await reconciler.policyDeleted(orphan, [CM])).toBe(0);
    expect(await reconciler.policyDeleted(gpol('sync', {}), [CM])).toBe(0);
    expect(configMaps(cluster)).toEqual(['data', 'clone']);
  });

  it('a NamespacedGeneratingPolicy reaches only its own namespace', async () => {
    const { cluster, reconciler } = await generated();
    const namespaced = gpol('sync', { synchronize: { enabled: true } }, 'team-b');
    expect(await reconciler.policyDeleted(namespaced, [CM])).toBe(0);
    expect(configMaps(cluster)).toEqual(['data', 'clone']);
    expect(await reconciler.policyDeleted(gpol('sync', { synchronize: { enabled: true } }, 'team-a'), [CM])).toBe(1);
  });
});

describe('GpolSyncReconciler on clone sources', () => {
  function cloned() {
    const context = setup();
    const { cluster, trigger } = context;
    const source = cluster.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'source', namespace: 'default', annotations: { a: 'b' } },
      data: { token: 'b25l' },
    });
    const copy = cluster.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'copy', namespace: 'team-a', labels: labelsFor('sync', trigger, source.metadata.uid) },
      data: { token: 'b25l' },
    });
    return { ...context, source, copy };
  }

  it('copies a changed source into its synchronized copies, keeping their name, namespace and labels', async () => {
    const { cluster, reconciler, source, copy, record } = cloned();
    const changed = await cluster.replace({ ...source, data: { token: 'dHdv' } });
    expect(await reconciler.sourceChanged(changed, () => true)).toBe(1);
    const now = cluster.find('v1', 'Secret', 'copy', 'team-a')!;
    expect(now).toMatchObject({
      data: { token: 'dHdv' },
      metadata: { labels: copy.metadata.labels, annotations: { a: 'b' } },
    });
    expect(record.isSource(source.metadata.uid!)).toBe(true);
    // Once copied, the same source writes nothing.
    const writes = cluster.writes.length;
    expect(await reconciler.sourceChanged(changed, () => true)).toBe(0);
    expect(cluster.writes.length).toBe(writes);
  });

  it('leaves the copies of a policy that does not synchronize', async () => {
    const { cluster, reconciler, source } = cloned();
    const changed = await cluster.replace({ ...source, data: { token: 'dHdv' } });
    expect(await reconciler.sourceChanged(changed, () => false)).toBe(0);
    expect(cluster.find('v1', 'Secret', 'copy', 'team-a')!.data).toEqual({ token: 'b25l' });
  });

  it('deletes the synchronized copies of a deleted source', async () => {
    const { cluster, reconciler, source } = cloned();
    expect(await reconciler.sourceDeleted(source, () => true)).toBe(1);
    expect(cluster.find('v1', 'Secret', 'copy', 'team-a')).toBeUndefined();
  });
});

describe('triggerOf', () => {
  it('reads the trigger from the labels, and nothing from incomplete ones', () => {
    const trigger = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', uid: 'u1' } };
    const object = { ...CM, metadata: { name: 'x', labels: labelsFor('p', trigger) } };
    expect(triggerOf(object)).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'ns', uid: 'u1' });
    expect(triggerOf({ ...CM, metadata: { name: 'x', labels: { [LABEL_TRIGGER_UID]: 'u1' } } })).toBeUndefined();
  });
});
