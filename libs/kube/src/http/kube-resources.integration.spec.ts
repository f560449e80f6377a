import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { InMemoryApiServer } from '@edict/apiserver';
import { KubeApiError } from '../errors/kube-api-error';
import { microTime } from '../helpers/micro-time';
import { patchObject } from '../helpers/patch-object';
import { kubeConfigForUrl } from '../testing';
import { KubeHttpClient } from './kube-http-client';
import { KubeResources } from './kube-resources';

const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;

describe('KubeResources against the in-memory API server', () => {
  const server = new InMemoryApiServer();
  let resources: KubeResources;
  let objectApi: KubernetesObjectApi;

  beforeAll(async () => {
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    const config = kubeConfigForUrl(url);
    resources = new KubeResources(new KubeHttpClient(config));
    objectApi = KubernetesObjectApi.makeApiClient(config);
    server.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
  });
  afterAll(async () => server.stop());

  it('creates, gets, lists (with kind filled in, across pages) and deletes', async () => {
    for (const name of ['a', 'b', 'c']) {
      await resources.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
        data: { n: name },
      });
    }
    const got = await resources.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' });
    expect(got).toMatchObject({ kind: 'ConfigMap', data: { n: 'b' } });
    expect(typeof got.metadata?.creationTimestamp).toBe('string'); // plain JSON, not Date
    const list = await resources.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' }, { limit: 2 });
    expect(list.items.map((i) => [i.kind, i.apiVersion, i.metadata?.name])).toEqual([
      ['ConfigMap', 'v1', 'a'],
      ['ConfigMap', 'v1', 'b'],
      ['ConfigMap', 'v1', 'c'],
    ]);
    await resources.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' });
    expect(
      await resources.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' }),
    ).toBeUndefined();
  });

  it('finds a top-level resource by its plural name, not a subresource or an unknown one', async () => {
    expect(await resources.resourceNamed('v1', 'configmaps')).toMatchObject({ kind: 'ConfigMap', namespaced: true });
    expect(await resources.resourceNamed('example.com/v1', 'widgets')).toMatchObject({ kind: 'Widget' });
    expect(await resources.resourceNamed('v1', 'pods/status')).toBeUndefined();
    expect(await resources.resourceNamed('v1', 'gizmos')).toBeUndefined();
  });

  it('answers typed errors: 404, 409 AlreadyExists, stale-update Conflict, unknown kind', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'missing' };
    await expect(resources.get(ref)).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup', namespace: 'default' } };
    const created = await resources.create(cm);
    await expect(resources.create(cm)).rejects.toMatchObject({ code: 409, reason: 'AlreadyExists' });
    await resources.replace({ ...created, data: { x: '1' } });
    await expect(resources.replace({ ...created, data: { x: '2' } })).rejects.toMatchObject({
      code: 409,
      reason: 'Conflict',
    });
    await expect(resources.path({ apiVersion: 'v1', kind: 'Nope' })).rejects.toBeInstanceOf(KubeApiError);
  });

  it('refuses a namespace for a cluster-scoped kind, and one object of a namespaced kind without one', async () => {
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    const clusterScoped = { apiVersion: 'v1', kind: 'Namespace', namespace: 'team-a', name: 'team-a' };
    const refused = { code: 400, reason: 'BadRequest' };
    await expect(resources.get(clusterScoped)).rejects.toMatchObject(refused);
    await expect(resources.get(clusterScoped)).rejects.toThrow(
      'kind "Namespace" (v1) is cluster-scoped: it has no namespace "team-a"',
    );
    // Not read as "not found", which a caller could take for a missing object.
    await expect(resources.find(clusterScoped)).rejects.toMatchObject(refused);
    await expect(
      resources.listPage({ apiVersion: 'v1', kind: 'Namespace', namespace: 'team-a' }),
    ).rejects.toMatchObject(refused);
    await expect(
      resources.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sneaky', namespace: 'team-a' } }),
    ).rejects.toMatchObject(refused);
    await expect(resources.patch(clusterScoped, 'merge', { metadata: { labels: { a: 'b' } } })).rejects.toMatchObject(
      refused,
    );
    await expect(resources.delete(clusterScoped)).rejects.toMatchObject(refused);
    expect(server.get('v1', 'Namespace', 'sneaky')).toBeUndefined();
    expect(await resources.get({ apiVersion: 'v1', kind: 'Namespace', name: 'team-a' })).toMatchObject({
      metadata: { name: 'team-a' },
    });

    const unnamespaced = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' };
    await expect(resources.get(unnamespaced)).rejects.toThrow(
      'kind "ConfigMap" (v1) is namespaced: "cm" needs a namespace',
    );
    await expect(resources.delete(unnamespaced)).rejects.toMatchObject(refused);
    await expect(resources.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } })).rejects.toThrow(
      'kind "ConfigMap" (v1) is namespaced: the object needs a namespace',
    );
    // A namespaced kind without a namespace is still the all-namespaces list.
    expect((await resources.list({ apiVersion: 'v1', kind: 'ConfigMap' })).items.length).toBeGreaterThan(0);
  });

  it('createOnly stores the object without reading it back, and answers AlreadyExists as create does', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'quiet', namespace: 'default' },
      data: { a: '1' },
    };
    expect(await resources.createOnly(cm)).toBeUndefined();
    const stored = await resources.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'quiet' });
    expect(stored).toMatchObject({ data: { a: '1' } });
    await expect(resources.createOnly(cm)).rejects.toMatchObject({ code: 409, reason: 'AlreadyExists' });
    // The connection stays usable after skipped bodies and error answers.
    expect(
      await resources.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'quiet' }),
    ).toMatchObject({ metadata: { name: 'quiet' } });
  });

  it('patches custom resources with merge and json patches; strategic merge is refused (415)', async () => {
    await resources.create({
      ...WIDGET,
      metadata: { name: 'w', namespace: 'default' },
      spec: { size: 1, tags: ['a'] },
    });
    const ref = { ...WIDGET, namespace: 'default', name: 'w' };
    expect(await resources.patch(ref, 'merge', { spec: { size: 2 } })).toMatchObject({
      spec: { size: 2, tags: ['a'] },
    });
    expect(await resources.patch(ref, 'json', [{ op: 'add', path: '/spec/tags/-', value: 'b' }])).toMatchObject({
      spec: { tags: ['a', 'b'] },
    });
    await expect(resources.patch(ref, 'strategic', { spec: { size: 3 } })).rejects.toMatchObject({ code: 415 });
    await expect(resources.patch(ref, 'json', { spec: {} })).rejects.toThrow(TypeError);
    await expect(resources.patch(ref, 'apply', { spec: {} })).rejects.toThrow(/fieldManager/);
  });

  it('patchObject passes the patch type to KubernetesObjectApi (merge works for CRs) and maps errors', async () => {
    await resources.create({ ...WIDGET, metadata: { name: 'w2', namespace: 'default' }, spec: { size: 1 } });
    const patched = await patchObject(
      objectApi,
      { ...WIDGET, metadata: { name: 'w2', namespace: 'default' }, spec: { size: 5 } } as never,
      'merge',
    );
    expect(patched).toMatchObject({ spec: { size: 5 } });
    await expect(
      patchObject(
        objectApi,
        { ...WIDGET, metadata: { name: 'w2', namespace: 'default' }, spec: {} } as never,
        'strategic',
      ),
    ).rejects.toMatchObject({ code: 415 });
  });

  it('writes Lease MicroTimes the server accepts', async () => {
    const lease = await resources.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'default' },
      spec: { holderIdentity: 'me', acquireTime: microTime(new Date('2026-01-01T00:00:00.123Z')) },
    });
    expect((lease.spec as { acquireTime: string }).acquireTime).toBe('2026-01-01T00:00:00.123000Z');
  });

  it('lists and watches metadata only when asked: PartialObjectMetadata, across pages', async () => {
    await resources.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'partial' } });
    for (const name of ['m1', 'm2', 'm3']) {
      await resources.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'partial', labels: { set: 'm' } },
        data: { big: 'x'.repeat(1000) },
      });
    }
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'partial' };
    const page = await resources.list(ref, { metadataOnly: true, limit: 2, labelSelector: 'set=m' });
    expect(page.items.map((item) => [item.kind, item.apiVersion, item.metadata?.name, 'data' in item])).toEqual([
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'm1', false],
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'm2', false],
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'm3', false],
    ]);
    expect(page.items[0]?.metadata?.labels).toEqual({ set: 'm' });

    const events: { type: string; object: { kind?: string; data?: unknown; metadata?: { name?: string } } }[] = [];
    const stream = await resources.watch(
      ref,
      { resourceVersion: page.resourceVersion, metadataOnly: true, timeoutSeconds: 5 },
      (event) => events.push(event),
    );
    await resources.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'm4', namespace: 'partial' },
      data: { a: 'b' },
    });
    const deadline = Date.now() + 5000;
    while (events.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    stream.abort();
    expect(
      events.map((event) => [event.type, event.object.kind, event.object.metadata?.name, event.object.data]),
    ).toEqual([['ADDED', 'PartialObjectMetadata', 'm4', undefined]]);
  });
});
