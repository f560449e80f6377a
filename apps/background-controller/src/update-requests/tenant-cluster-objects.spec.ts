import { describe, expect, it } from 'vitest';
import { TenantWriteRefused } from '@edict/context';
import { FakeCluster } from '../testing/fake-cluster';
import { tenantClusterObjects } from './tenant-cluster-objects';

const tenant = { kind: 'Policy', name: 'escape', namespace: 'team-a' };
const configMap = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace },
});

describe('tenantClusterObjects', () => {
  it('writes namespaced objects of the policy namespace', async () => {
    const fake = new FakeCluster();
    const cluster = tenantClusterObjects(fake, tenant);
    const created = await cluster.create(configMap('team-a'));
    await cluster.replace({ ...created, data: { a: '1' } });
    await cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'cm' });
    expect(fake.writes).toEqual(['create ConfigMap cm', 'replace ConfigMap cm', 'delete ConfigMap cm']);
  });

  it('refuses, before any write, another namespace, a cluster-scoped or unserved kind, and Kyverno kinds', async () => {
    const fake = new FakeCluster();
    fake.unservedKinds.add('Gadget');
    const cluster = tenantClusterObjects(fake, tenant);
    const policy = fake.put({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'require-team-label' },
    });
    await expect(cluster.replace({ ...policy, spec: { admission: false } })).rejects.toThrow(
      'Policy team-a/escape may not update kyverno.io/v1/ClusterPolicy require-team-label',
    );
    await expect(cluster.create(configMap('team-b'))).rejects.toThrow('(the object is in namespace "team-b")');
    await expect(
      cluster.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'x' } }),
    ).rejects.toThrow('(ClusterRole is cluster-scoped)');
    await expect(
      cluster.create({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'team-a' } }),
    ).rejects.toThrow('cannot be determined from discovery');
    await expect(
      cluster.create({ apiVersion: 'kyverno.io/v1', kind: 'Policy', metadata: { name: 'p', namespace: 'team-a' } }),
    ).rejects.toBeInstanceOf(TenantWriteRefused);
    await expect(cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'team-b' })).rejects.toThrow(
      '(Namespace is cluster-scoped)',
    );
    expect(fake.writes).toEqual([]);
  });

  it('leaves a cluster-wide policy unrestricted', async () => {
    const fake = new FakeCluster();
    await tenantClusterObjects(fake, { kind: 'ClusterPolicy', name: 'p' }).create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'made' },
    });
    expect(fake.writes).toEqual(['create Namespace made']);
  });
});
