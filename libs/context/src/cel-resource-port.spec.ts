import { describe, expect, it } from 'vitest';
import { CelPortError, compileCel, kyvernoActivation } from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import { KubeApiError, type ApiResourceInfo, type KubeHttpRequest, type KubeResources } from '@edict/kube';
import { KubeCelResourcePort, MAX_CEL_LISTED_OBJECTS } from './cel-resource-port';
import { RESOURCE_READ_TIMEOUT_MS } from './cluster-resource-loader';

const served: Record<string, ApiResourceInfo[]> = {
  v1: [
    { name: 'configmaps', namespaced: true, kind: 'ConfigMap' },
    { name: 'namespaces', namespaced: false, kind: 'Namespace' },
  ],
  'apps/v1': [{ name: 'deployments', namespaced: true, kind: 'Deployment' }],
};

const settings: JsonObject = { metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } };

/** An API server with discovery for v1 and apps/v1, one ConfigMap, and a forbidden namespace. */
function setup(list: JsonObject = { kind: 'ConfigMapList', metadata: {}, items: [settings] }) {
  const requests: KubeHttpRequest[] = [];
  const resources = {
    resourceNamed: async (apiVersion: string, name: string) => served[apiVersion]?.find((r) => r.name === name),
    resource: async (apiVersion: string, kind: string) => {
      const hit = served[apiVersion]?.find((r) => r.kind === kind);
      if (!hit) throw new KubeApiError(404, 'NotFound', `the server does not serve kind "${kind}" in "${apiVersion}"`);
      return hit;
    },
    http: {
      json: async (request: KubeHttpRequest) => {
        requests.push(request);
        if (request.path.includes('/namespaces/secret/'))
          throw new KubeApiError(403, 'Forbidden', 'configmaps is forbidden');
        if (request.method === 'POST') return { ...(request.body as JsonObject), metadata: { uid: '1' } };
        if (request.path === '/api/v1/namespaces/shop/configmaps/settings') return settings;
        if (request.path.endsWith('/configmaps')) return list;
        throw new KubeApiError(404, 'NotFound', 'not found');
      },
    },
  } as unknown as KubeResources;
  return { port: new KubeCelResourcePort(resources), requests };
}

const call = { maxResponseBytes: 1024 * 1024 };

describe('KubeCelResourcePort', () => {
  it('gets by apiVersion and plural, bounded in time and size; null when not found', async () => {
    const { port, requests } = setup();
    await expect(
      port.get({ apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', name: 'settings' }, call),
    ).resolves.toBe(settings);
    expect(requests[0]).toMatchObject({
      path: '/api/v1/namespaces/shop/configmaps/settings',
      totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
      maxResponseBytes: call.maxResponseBytes,
    });
    await expect(
      port.get({ apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', name: 'nope' }, call),
    ).resolves.toBeNull();
  });

  it('finds nothing for a namespace given to a cluster-scoped resource, as the API server would', async () => {
    const { port, requests } = setup();
    await expect(
      port.get({ apiVersion: 'v1', resource: 'namespaces', namespace: 'shop', name: 'shop' }, call),
    ).resolves.toBeNull();
    expect(requests).toEqual([]);
  });

  it('fails with NotFound for a resource the server does not serve, and Forbidden as the server says', async () => {
    const { port } = setup();
    await expect(
      port.get({ apiVersion: 'v1', resource: 'widgets', namespace: 'shop', name: 'x' }, call),
    ).rejects.toMatchObject({
      reason: 'NotFound',
    });
    const forbidden = port.get({ apiVersion: 'v1', resource: 'configmaps', namespace: 'secret', name: 'x' }, call);
    await expect(forbidden).rejects.toBeInstanceOf(CelPortError);
    await expect(forbidden).rejects.toMatchObject({ reason: 'Forbidden' });
  });

  it("lists with a label selector and gives items the list's apiVersion and kind", async () => {
    const { port, requests } = setup();
    const list = await port.list(
      { apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', labels: { b: '2', a: '1' } },
      call,
    );
    expect(list.items).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', ...settings }]);
    expect(requests[0]?.query).toEqual({ limit: MAX_CEL_LISTED_OBJECTS, labelSelector: 'a=1,b=2' });
  });

  it('refuses a list longer than one page', async () => {
    const { port } = setup({ kind: 'ConfigMapList', metadata: { continue: 'more' }, items: [] });
    await expect(port.list({ apiVersion: 'v1', resource: 'configmaps', namespace: '' }, call)).rejects.toThrow(
      /more than 500 configmaps in the cluster; narrow the list with labels/,
    );
  });

  it('creates in the collection and maps kinds to resources', async () => {
    const { port, requests } = setup();
    await port.create(
      { apiVersion: 'v1', resource: 'configmaps', namespace: 'shop' },
      { metadata: { name: 'n' } },
      call,
    );
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/api/v1/namespaces/shop/configmaps' });
    await expect(port.toGVR('apps/v1', 'Deployment', call)).resolves.toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
    });
  });

  it("serves Kyverno's resource library end to end, confined for a namespaced policy", async () => {
    const { port, requests } = setup();
    const variables = { params: false, authorizer: false, kyverno: true, namespacedPolicy: true };
    const program = compileCel('resource.Get("v1", "configmaps", "settings").data.a', variables, 'any');
    await expect(
      Promise.resolve(program.evaluate(kyvernoActivation({ resources: port }, { policyNamespace: 'shop' }))),
    ).resolves.toBe('1');
    expect(requests.map((r) => r.path)).toEqual(['/api/v1/namespaces/shop/configmaps/settings']);
  });
});
