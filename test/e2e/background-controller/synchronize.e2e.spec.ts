/**
 * `synchronize: true` end to end through the in-memory API server, the admission controller and
 * the background controller: an edited or deleted clone is restored from its source, a change to
 * the source reaches every copy, and deleting a trigger deletes what a synchronized rule generated
 * for it while a rule without synchronize leaves its objects in place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SOURCE_DATA = { token: 'c2VjcmV0' };

describe('synchronize', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const secretData = (namespace: string) => get('v1', 'Secret', 'regcred', namespace)?.data;
  const editSecret = async (namespace: string, data: Record<string, string>) => {
    const current = await cluster.core.readNamespacedSecret({ name: 'regcred', namespace });
    await cluster.core.replaceNamespacedSecret({ name: 'regcred', namespace, body: { ...current, data } });
  };

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica({ omitEvents: [] });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    background = await startTestBackground(cluster);
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'default' },
      data: SOURCE_DATA,
    } as unknown as JsonObject);
    await cluster.createClusterPolicy(
      clusterPolicy('sync-regcred', {
        rules: [
          {
            name: 'clone-regcred',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['team-*'] } }] },
            generate: {
              apiVersion: 'v1',
              kind: 'Secret',
              name: 'regcred',
              namespace: '{{request.object.metadata.name}}',
              synchronize: true,
              clone: { namespace: 'default', name: 'regcred' },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'secrets');
    for (const name of ['team-a', 'team-b']) await cluster.core.createNamespace({ body: { metadata: { name } } });
    await eventually(
      () => secretData('team-a') !== undefined && secretData('team-b') !== undefined,
      'the cloned Secrets',
      15_000,
    );
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('restores an edited copy from its source', async () => {
    await editSecret('team-a', { token: 'ZWRpdGVk' });
    await eventually(() => secretData('team-a')?.token === SOURCE_DATA.token, 'the copy restored', 15_000);
    expect(secretData('team-a')).toEqual(SOURCE_DATA);
  }, 30_000);

  it('brings a deleted copy back', async () => {
    await cluster.core.deleteNamespacedSecret({ name: 'regcred', namespace: 'team-b' });
    await eventually(() => secretData('team-b') !== undefined, 'the copy recreated', 15_000);
    expect(secretData('team-b')).toEqual(SOURCE_DATA);
  }, 30_000);

  it('propagates a change of the source to every copy', async () => {
    const changed = { token: 'bmV3' };
    await editSecret('default', changed);
    await eventually(
      () => secretData('team-a')?.token === changed.token && secretData('team-b')?.token === changed.token,
      'both copies updated',
      15_000,
    );
    expect(get('v1', 'Secret', 'regcred', 'default')!.metadata.labels).toHaveProperty(
      ['generate.kyverno.io/clone-source'],
      '',
    );
  }, 30_000);

  it('deletes what a synchronized rule generated when its trigger is deleted; without synchronize it stays', async () => {
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } as JsonObject);
    const derived = (name: string, synchronize: boolean) => ({
      name,
      match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['settings'] } }] },
      generate: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name,
        namespace: '{{request.object.metadata.namespace}}',
        synchronize,
        data: { data: { from: '{{request.object.metadata.name}}' } },
      },
    });
    await cluster.createClusterPolicy(clusterPolicy('derive-sync', { rules: [derived('derived-sync', true)] }));
    await cluster.createClusterPolicy(clusterPolicy('derive-nosync', { rules: [derived('derived-nosync', false)] }));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    await cluster.core.createNamespacedConfigMap({ namespace: 'shop', body: { metadata: { name: 'settings' } } });
    await eventually(
      () =>
        get('v1', 'ConfigMap', 'derived-sync', 'shop') !== undefined &&
        get('v1', 'ConfigMap', 'derived-nosync', 'shop') !== undefined,
      'both derived ConfigMaps',
      15_000,
    );
    await cluster.core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'shop' });
    await eventually(
      () => get('v1', 'ConfigMap', 'derived-sync', 'shop') === undefined,
      'the synchronized one deleted',
      15_000,
    );
    expect(get('v1', 'ConfigMap', 'derived-nosync', 'shop')).toBeDefined();
  }, 30_000);

  it("deleting a foreach clone's source deletes the copies made from it", async () => {
    for (const name of ['fan-1', 'fan-2'])
      cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as JsonObject);
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'fan-source', namespace: 'default' },
      data: SOURCE_DATA,
    } as unknown as JsonObject);
    await cluster.createClusterPolicy(
      clusterPolicy('fan-out', {
        rules: [
          {
            name: 'fan-out',
            match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['fan-out'] } }] },
            generate: {
              synchronize: true,
              foreach: [
                {
                  list: "request.object.data.namespaces | split(@, ',')",
                  apiVersion: 'v1',
                  kind: 'Secret',
                  name: 'copy-{{ elementIndex }}',
                  namespace: '{{ element }}',
                  clone: { namespace: 'default', name: 'fan-source' },
                },
              ],
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    await cluster.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'fan-out' }, data: { namespaces: 'fan-1,fan-2' } },
    });
    const copies = () => [get('v1', 'Secret', 'copy-0', 'fan-1'), get('v1', 'Secret', 'copy-1', 'fan-2')];
    await eventually(() => copies().every((copy) => copy !== undefined), 'both copies', 15_000);
    await eventually(
      () => 'generate.kyverno.io/clone-source' in (get('v1', 'Secret', 'fan-source', 'default')!.metadata.labels ?? {}),
      'the source marked',
      15_000,
    );
    await cluster.core.deleteNamespacedSecret({ name: 'fan-source', namespace: 'default' });
    await eventually(() => copies().every((copy) => copy === undefined), 'both copies deleted', 15_000);
  }, 45_000);
});
