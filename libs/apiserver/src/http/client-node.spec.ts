// @kubernetes/client-node 1.4.0 against the server: typed and generic clients, watches and informers.
import { afterEach, describe, expect, it } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { kubeconfigFor } from '../kubeconfig';
import { startServer, type Running } from '../testing/http';

let running: Running;
afterEach(async () => {
  await running?.server.stop();
});

function clientConfig(url: string): k8s.KubeConfig {
  const config = new k8s.KubeConfig();
  config.loadFromString(kubeconfigFor({ server: url }));
  return config;
}

describe('@kubernetes/client-node', () => {
  it('creates, reads, lists, patches and deletes through CoreV1Api and KubernetesObjectApi', async () => {
    running = await startServer();
    const config = clientConfig(running.url);
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cfg', labels: { app: 'a' } }, data: { k: 'v' } },
    });
    const read = await core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    expect(read.data).toEqual({ k: 'v' });
    expect(read.metadata?.uid).toBeDefined();
    const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=a' });
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['cfg']);

    const objects = k8s.KubernetesObjectApi.makeApiClient(config);
    const patched = await objects.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: 'default' },
        data: { k2: 'v2' },
      } as k8s.KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    expect((patched as unknown as { data: Record<string, string> }).data).toEqual({ k: 'v', k2: 'v2' });
    const lease = await objects.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader', namespace: 'kube-system' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    } as k8s.KubernetesObject);
    expect(lease.metadata?.resourceVersion).toBeDefined();

    await core.deleteNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    await expect(core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('reports a stale update as a 409 ApiException', async () => {
    running = await startServer();
    const core = clientConfig(running.url).makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c' } } });
    await core.replaceNamespacedConfigMap({ name: 'c', namespace: 'default', body: { ...created, data: { a: '1' } } });
    await expect(
      core.replaceNamespacedConfigMap({ name: 'c', namespace: 'default', body: { ...created, data: { a: '2' } } }),
    ).rejects.toMatchObject({
      code: 409,
    });
  });

  it('Watch receives ADDED, MODIFIED and DELETED', async () => {
    running = await startServer();
    const config = clientConfig(running.url);
    const core = config.makeApiClient(k8s.CoreV1Api);
    const seen: string[] = [];
    const watch = new k8s.Watch(config);
    const request = await watch.watch(
      '/api/v1/namespaces/default/configmaps',
      {},
      (phase, object: k8s.V1ConfigMap) => seen.push(`${phase} ${object.metadata?.name}`),
      () => undefined,
    );
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w' } } });
    await core.patchNamespacedConfigMap(
      { name: 'w', namespace: 'default', body: { data: { a: '1' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ name: 'w', namespace: 'default' });
    await expect.poll(() => seen, { timeout: 3000 }).toEqual(['ADDED w', 'MODIFIED w', 'DELETED w']);
    request.abort();
  });

  it('an informer lists, then follows changes', async () => {
    running = await startServer();
    const config = clientConfig(running.url);
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before' } } });
    const informer = k8s.makeInformer(config, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const added: string[] = [];
    informer.on('add', (object: k8s.V1ConfigMap) => added.push(object.metadata!.name!));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after' } } });
    await expect.poll(() => added, { timeout: 3000 }).toEqual(['before', 'after']);
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['after', 'before']);
    await informer.stop();
  });
});
