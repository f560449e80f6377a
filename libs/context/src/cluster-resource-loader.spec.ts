import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { KubeApiError, type ApiResourceInfo, type KubeHttpRequest, type KubeResources } from '@edict/kube';
import { ClusterResourceLoader, MAX_LISTED_OBJECTS, RESOURCE_READ_TIMEOUT_MS } from './cluster-resource-loader';

const limit = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'rules.example.com/v1',
  kind: 'Limit',
  metadata: { name, namespace: 'shop', labels },
});

/** An API server serving namespaced `Limit` objects under /apis/rules.example.com/v1. */
function setup(items: KubeObject[], extra: { continue?: string } = {}) {
  const requests: KubeHttpRequest[] = [];
  const info: ApiResourceInfo = { name: 'limits', namespaced: true, kind: 'Limit' };
  const resources = {
    resource: async (_apiVersion: string, kind: string) => {
      if (kind !== 'Limit') throw new KubeApiError(404, 'NotFound', `the server does not serve kind "${kind}"`);
      return info;
    },
    path: async (ref: { namespace?: string; name?: string }) =>
      `/apis/rules.example.com/v1/namespaces/${ref.namespace}/limits/${ref.name}`,
    listPage: async () => ({ items, resourceVersion: '1', ...extra }),
    http: {
      json: async (request: KubeHttpRequest) => {
        requests.push(request);
        const found = items.find((item) => request.path.endsWith(`/${item.metadata?.name}`));
        if (!found) throw new KubeApiError(404, 'NotFound', 'not found');
        return found;
      },
    },
  } as unknown as KubeResources;
  const shop = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } as KubeObject;
  const namespaces = { namespaceObject: async (name: string) => (name === 'shop' ? shop : undefined) };
  return { loader: new ClusterResourceLoader(resources, namespaces), requests, shop };
}

describe('ClusterResourceLoader', () => {
  it('gets one object within a time limit, undefined when it does not exist', async () => {
    const { loader, requests } = setup([limit('a')]);
    expect((await loader.get('rules.example.com/v1', 'Limit', 'shop', 'a'))?.metadata?.name).toBe('a');
    expect(await loader.get('rules.example.com/v1', 'Limit', 'shop', 'b')).toBeUndefined();
    expect(requests[0]).toMatchObject({
      path: '/apis/rules.example.com/v1/namespaces/shop/limits/a',
      totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
    });
  });

  it('answers Namespaces from the namespace informer', async () => {
    const { loader, requests, shop } = setup([]);
    expect(await loader.get('v1', 'Namespace', undefined, 'shop')).toBe(shop);
    expect(requests).toEqual([]);
  });

  it('lists with a label selector, and refuses more objects than a rule may evaluate', async () => {
    const { loader } = setup([limit('a', { tier: 'x' }), limit('b', { tier: 'y' })]);
    const picked = await loader.list('rules.example.com/v1', 'Limit', 'shop', { matchLabels: { tier: 'x' } });
    expect(picked.map((o) => o.metadata.name)).toEqual(['a']);
    const many = Array.from({ length: MAX_LISTED_OBJECTS + 1 }, (_, i) => limit(`l${i}`));
    await expect(setup(many).loader.list('rules.example.com/v1', 'Limit', 'shop')).rejects.toThrow(
      `more than ${MAX_LISTED_OBJECTS} Limit objects match`,
    );
    await expect(setup([], { continue: 'next' }).loader.list('rules.example.com/v1', 'Limit', 'shop')).rejects.toThrow(
      'narrow the selector',
    );
  });

  it("tells a kind's scope from discovery, undefined for a kind the server does not serve", async () => {
    const { loader } = setup([]);
    expect(await loader.namespaced('rules.example.com/v1', 'Limit')).toBe(true);
    expect(await loader.namespaced('rules.example.com/v1', 'Nothing')).toBeUndefined();
  });

  it("resolves a wildcard apiVersion to a served version of the kind, the group's preferred first", async () => {
    // Served: core v1 (Pod); apps v1 (preferred) and v1beta1, both with Deployment.
    const served: Record<string, string[]> = { v1: ['Pod'], 'apps/v1': ['Deployment'], 'apps/v1beta1': ['Deployment'] };
    const listed: string[] = [];
    const resources = {
      resource: async (apiVersion: string, kind: string) => {
        if (!served[apiVersion]?.includes(kind)) throw new KubeApiError(404, 'NotFound', 'not served');
        return { name: `${kind.toLowerCase()}s`, namespaced: true, kind };
      },
      listPage: async (ref: { apiVersion: string; kind: string }) => {
        listed.push(ref.apiVersion);
        return {
          items: [{ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'x' } }],
          resourceVersion: '1',
        };
      },
      http: {
        json: async ({ path }: KubeHttpRequest) => {
          if (path === '/api') return { versions: ['v1'] };
          if (path === '/apis')
            return {
              groups: [
                {
                  name: 'apps',
                  versions: [{ version: 'v1beta1' }, { version: 'v1' }],
                  preferredVersion: { version: 'v1' },
                },
              ],
            };
          throw new KubeApiError(404, 'NotFound', path);
        },
      },
    } as unknown as KubeResources;
    const loader = new ClusterResourceLoader(resources, { namespaceObject: async () => undefined });
    expect((await loader.list('*', 'Pod'))[0]?.apiVersion).toBe('v1');
    expect(await loader.namespaced('apps/*', 'Deployment')).toBe(true);
    await loader.list('apps/*', 'Deployment');
    await loader.list('*/*', 'Deployment');
    expect(listed).toEqual(['v1', 'apps/v1', 'apps/v1']);
    // `*` alone is the core group's versions, as in Kyverno: Deployments are not there.
    await expect(loader.list('*', 'Deployment')).rejects.toThrow(
      'no served version of kind "Deployment" matches apiVersion "*"',
    );
    expect(await loader.namespaced('*', 'Deployment')).toBeUndefined();
  });
});
