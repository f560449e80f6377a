import { describe, expect, it } from 'vitest';
import type { Rule } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import { deleteGeneratedFor, markCloneSources } from './synchronized-downstream';

const rule: Rule = {
  name: 'default-deny',
  match: { any: [{ resources: { kinds: ['Namespace'] } }] },
  generate: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: 'default-deny', synchronize: true },
};

const generated = (namespace: string, policy: string, triggerUid: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: {
    name: 'default-deny',
    namespace,
    labels: {
      'app.kubernetes.io/managed-by': 'kyverno',
      'generate.kyverno.io/policy-name': policy,
      'generate.kyverno.io/policy-namespace': '',
      'generate.kyverno.io/rule-name': 'default-deny',
      'generate.kyverno.io/trigger-group': '',
      'generate.kyverno.io/trigger-version': 'v1',
      'generate.kyverno.io/trigger-kind': 'Namespace',
      'generate.kyverno.io/trigger-namespace': '',
      'generate.kyverno.io/trigger-uid': triggerUid,
    },
  },
});

describe('deleteGeneratedFor', () => {
  it('deletes what the policy generated for that trigger only', async () => {
    const cluster = new FakeCluster();
    cluster.put(generated('team-a', 'netpol', 'uid-a'));
    cluster.put(generated('team-b', 'netpol', 'uid-b'));
    cluster.put(generated('team-c', 'other', 'uid-a'));
    const trigger = { apiVersion: 'v1', kind: 'Namespace', uid: 'uid-a' };
    const deleted = await deleteGeneratedFor(rule, { name: 'netpol' }, trigger, cluster);
    expect(deleted).toEqual([
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'team-a', name: 'default-deny' },
    ]);
    expect([...cluster.objects.values()].map((object) => object.metadata?.namespace)).toEqual(['team-b', 'team-c']);
    // Twice is fine: nothing is left to delete.
    expect(await deleteGeneratedFor(rule, { name: 'netpol' }, trigger, cluster)).toEqual([]);
  });
});

describe('markCloneSources', () => {
  it('labels each clone source once, keeping its other labels, and skips generated data', async () => {
    const cluster = new FakeCluster();
    const name = `regcred-${'x'.repeat(80)}`; // longer than a label value: found by its full name
    cluster.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default', labels: { a: 'b' } } });
    const clone = { type: 'clone', source: { apiVersion: 'v1', kind: 'Secret', namespace: 'default', name } } as const;
    await markCloneSources([clone, clone, { type: 'data' }], cluster);
    expect(cluster.find('v1', 'Secret', name, 'default')?.metadata?.labels).toEqual({
      a: 'b',
      'generate.kyverno.io/clone-source': '',
    });
    expect(cluster.writes).toEqual([`replace Secret ${name}`]);
    await markCloneSources([clone], cluster);
    expect(cluster.writes).toEqual([`replace Secret ${name}`]);
  });
});
