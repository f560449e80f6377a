import { describe, expect, it } from 'vitest';
import type { Rule } from '@edict/engine';
import type { KubeObject } from '@edict/kube';
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
  it('labels each source of the copies once, keeping its other labels, and skips objects that are no copies', async () => {
    const cluster = new FakeCluster();
    cluster.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'default', labels: { a: 'b' } },
    });
    const copy = (namespace: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'regcred',
        namespace,
        labels: {
          'generate.kyverno.io/source-group': '',
          'generate.kyverno.io/source-version': 'v1',
          'generate.kyverno.io/source-kind': 'Secret',
          'generate.kyverno.io/source-namespace': 'default',
          'generate.kyverno.io/source-name': 'regcred',
        },
      },
    });
    await markCloneSources([copy('team-a'), copy('team-b'), generated('team-a', 'netpol', 'u')], cluster);
    expect(cluster.find('v1', 'Secret', 'regcred', 'default')?.metadata?.labels).toEqual({
      a: 'b',
      'generate.kyverno.io/clone-source': '',
    });
    expect(cluster.writes).toEqual(['replace Secret regcred']);
    await markCloneSources([copy('team-c')], cluster);
    expect(cluster.writes).toEqual(['replace Secret regcred']);
  });
});
