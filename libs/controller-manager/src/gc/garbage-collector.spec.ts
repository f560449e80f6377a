// ownerReferences garbage collection: background cascade, orphaning, foreground, surviving owners.
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { dig } from '@edict/apiserver/testing';
import { startCluster, type RunningCluster } from '../testing';

let running: RunningCluster | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

function ref(owner: JsonObject, extra: JsonObject = {}): JsonObject {
  const meta = owner.metadata as JsonObject;
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: meta.name!, uid: meta.uid!, ...extra };
}

/** Deployment → ReplicaSet → Pod, linked as the controllers would link them. */
async function chain(
  extra: JsonObject = {},
): Promise<{ deployment: JsonObject; replicaSet: JsonObject; pod: JsonObject }> {
  running = await startCluster();
  const { server } = running;
  const selector = { matchLabels: { app: 'web' } };
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const deployment = server.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 1, selector, template },
  });
  const replicaSet = server.create({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-1',
      namespace: 'default',
      ownerReferences: [ref(deployment, { controller: true, ...extra })],
    },
    spec: { replicas: 1, selector, template },
  });
  const pod = server.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-1-a',
      namespace: 'default',
      ownerReferences: [ref(replicaSet, { controller: true, ...extra })],
    },
    spec: template.spec,
  });
  return { deployment, replicaSet, pod };
}

const DEPLOYMENT = '/apis/apps/v1/namespaces/default/deployments/web';

describe('garbage collection', () => {
  it("deletes a Deployment's ReplicaSet and its Pod in the background (the default)", async () => {
    await chain();
    const { server, request } = running!;
    expect((await request('DELETE', DEPLOYMENT)).status).toBe(200);
    await running!.controllerManager.gc!.settled();
    expect(server.get('apps/v1', 'ReplicaSet', 'web-1', 'default')).toBeUndefined();
    expect(server.get('v1', 'Pod', 'web-1-a', 'default')).toBeUndefined();
  });

  it('cascades through the direct API as well, and leaves unrelated objects alone', async () => {
    await chain();
    const { server } = running!;
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'default' } });
    server.delete('apps/v1', 'Deployment', 'web', 'default');
    await running!.controllerManager.gc!.settled();
    expect(server.list('v1', 'Pod', 'default')).toEqual([]);
    expect(server.get('v1', 'ConfigMap', 'keep', 'default')).toBeDefined();
  });

  it('orphans dependents with propagationPolicy Orphan (body or query) and orphanDependents', async () => {
    await chain();
    const { server, request } = running!;
    const deleted = await request('DELETE', DEPLOYMENT, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    expect(deleted.status).toBe(200);
    await running!.controllerManager.gc!.settled();
    expect(server.get('apps/v1', 'Deployment', 'web', 'default')).toBeUndefined();
    const replicaSet = server.get('apps/v1', 'ReplicaSet', 'web-1', 'default');
    expect(dig(replicaSet, 'metadata.ownerReferences')).toBeUndefined();
    // The Pod still belongs to the surviving ReplicaSet.
    expect(dig(server.get('v1', 'Pod', 'web-1-a', 'default'), 'metadata.ownerReferences.0.name')).toBe('web-1');

    expect(
      (await request('DELETE', '/apis/apps/v1/namespaces/default/replicasets/web-1?propagationPolicy=Orphan')).status,
    ).toBe(200);
    await running!.controllerManager.gc!.settled();
    expect(dig(server.get('v1', 'Pod', 'web-1-a', 'default'), 'metadata.ownerReferences')).toBeUndefined();
  });

  it('keeps the owner with foregroundDeletion until blocking dependents are gone', async () => {
    await chain({ blockOwnerDeletion: true });
    const { server, request } = running!;
    const deleted = await request('DELETE', DEPLOYMENT, { propagationPolicy: 'Foreground' });
    expect(deleted.status).toBe(202);
    expect(dig(deleted.body, 'metadata.finalizers')).toEqual(['foregroundDeletion']);
    expect(dig(deleted.body, 'metadata.deletionTimestamp')).toBeDefined();
    await running!.controllerManager.gc!.settled();
    expect(server.get('apps/v1', 'Deployment', 'web', 'default')).toBeUndefined();
    expect(server.get('apps/v1', 'ReplicaSet', 'web-1', 'default')).toBeUndefined();
    expect(server.get('v1', 'Pod', 'web-1-a', 'default')).toBeUndefined();
  });

  it('keeps a dependent that still has a live owner, dropping only the dangling reference', async () => {
    running = await startCluster();
    const { server } = running;
    const a = server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
    const b = server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } });
    server.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default', ownerReferences: [ref(a), ref(b)] },
    });
    server.delete('v1', 'ConfigMap', 'a', 'default');
    await running!.controllerManager.gc!.settled();
    const secret = server.get('v1', 'Secret', 's', 'default');
    expect(dig<JsonObject[]>(secret, 'metadata.ownerReferences').map((r) => r.name)).toEqual(['b']);
    server.delete('v1', 'ConfigMap', 'b', 'default');
    await running!.controllerManager.gc!.settled();
    expect(server.get('v1', 'Secret', 's', 'default')).toBeUndefined();
  });

  it('waits for finalizers: dependents go only once the owner is really removed', async () => {
    running = await startCluster();
    const { server, request } = running;
    const owner = server.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner', namespace: 'default', finalizers: ['edict.io/hold'] },
    });
    server.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dep', namespace: 'default', ownerReferences: [ref(owner)] },
    });
    expect((await request('DELETE', '/api/v1/namespaces/default/configmaps/owner')).status).toBe(202);
    await running!.controllerManager.gc!.settled();
    expect(server.get('v1', 'Secret', 'dep', 'default')).toBeDefined();
    const held = server.get('v1', 'ConfigMap', 'owner', 'default')!;
    server.update({ ...held, metadata: { ...(held.metadata as JsonObject), finalizers: [] } });
    await running!.controllerManager.gc!.settled();
    expect(server.get('v1', 'Secret', 'dep', 'default')).toBeUndefined();
  });

  it('rejects an unknown propagationPolicy', async () => {
    await chain();
    const result = await running!.request('DELETE', DEPLOYMENT, { propagationPolicy: 'Sideways' });
    expect(result.status).toBe(422);
    expect(result.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"',
    );
  });
});
