import { describe, expect, it } from 'vitest';
import type { APICall, OciReader } from '@edict/engine';
import type { JsonValue, KubeObject } from '@edict/foundation';
import {
  ClusterContextLoaders,
  type ApiCallers,
  type ConfigMapSource,
  type GlobalContextReader,
} from './cluster-context-loaders';
import { unavailableImageData, type ImageDataSource } from './image-data-source';
import { ContextAccessError } from './policy-scope';

const namespaced = { policyNamespace: 'shop' };
const cluster = {};

function setup() {
  const configMapReads: string[] = [];
  const calls: Array<{ via: 'kube' | 'service'; call: APICall }> = [];
  const configMaps: ConfigMapSource = {
    get(namespace, name) {
      configMapReads.push(`${namespace}/${name}`);
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data: { k: 'v' } } as KubeObject;
    },
  };
  const callers: ApiCallers = {
    kube: async (call) => {
      calls.push({ via: 'kube', call });
      return { items: [] };
    },
    service: async (call) => {
      calls.push({ via: 'service', call });
      return { allowed: true };
    },
  };
  const globalContext: GlobalContextReader = {
    read(name) {
      if (name === 'regions') return { regions: ['eu'] } as JsonValue;
      throw new Error(`global context entry "${name}" does not exist`);
    },
  };
  const loaders = new ClusterContextLoaders(configMaps, callers, globalContext, unavailableImageData);
  return { loaders, configMapReads, calls, callersForReuse: callers };
}

describe('ClusterContextLoaders', () => {
  it("reads a namespaced Policy's own ConfigMaps and refuses another namespace's without reading it", async () => {
    const { loaders, configMapReads } = setup();
    expect((await loaders.configMap('shop', 'settings', namespaced))?.data).toEqual({ k: 'v' });
    expect(() => loaders.configMap('kube-system', 'settings', namespaced)).toThrow(ContextAccessError);
    expect(() => loaders.configMap('kube-system', 'settings', namespaced)).toThrow(
      /a Policy in namespace "shop" may read ConfigMaps of its own namespace only, not of "kube-system"/,
    );
    expect(configMapReads).toEqual(['shop/settings']);
  });

  it('lets a ClusterPolicy read any namespace', async () => {
    const { loaders } = setup();
    expect((await loaders.configMap('kube-system', 'settings', cluster))?.metadata).toMatchObject({
      namespace: 'kube-system',
    });
  });

  it("keeps a namespaced Policy's urlPath calls in its namespace; service calls go to the egress caller", async () => {
    const { loaders, calls } = setup();
    await expect(loaders.apiCall({ urlPath: '/api/v1/namespaces/shop/pods' }, namespaced)).resolves.toEqual({
      items: [],
    });
    await expect(loaders.apiCall({ urlPath: '/api/v1/namespaces/default/secrets' }, namespaced)).rejects.toThrow(
      /not namespace "default"/,
    );
    await expect(loaders.apiCall({ urlPath: '/api/v1/nodes' }, namespaced)).rejects.toThrow(
      /not a cluster-scoped path/,
    );
    await expect(loaders.apiCall({ service: { url: 'https://checker.example/x' } }, namespaced)).resolves.toEqual({
      allowed: true,
    });
    expect(calls.map((c) => `${c.via} ${c.call.urlPath ?? c.call.service?.url}`)).toEqual([
      'kube /api/v1/namespaces/shop/pods',
      'service https://checker.example/x',
    ]);
  });

  it('lets a ClusterPolicy call cluster-scoped paths, and refuses an apiCall with both or neither target', async () => {
    const { loaders, calls } = setup();
    await loaders.apiCall({ urlPath: '/api/v1/nodes' }, cluster);
    expect(calls).toHaveLength(1);
    await expect(loaders.apiCall({ urlPath: '/x', service: { url: 'https://a' } }, cluster)).rejects.toThrow(
      'apiCall has both urlPath and service; give one',
    );
    await expect(loaders.apiCall({}, cluster)).rejects.toThrow('apiCall needs urlPath or service');
  });

  it('reads global context entries from their reader, passing its refusal on', () => {
    const { loaders } = setup();
    expect(loaders.globalReference('regions')).toEqual({ regions: ['eu'] });
    expect(() => loaders.globalReference('nope')).toThrow('global context entry "nope" does not exist');
  });

  it("gives verifyImages rules the image source's registry reader and trusted root", async () => {
    const root = { trustedRootJson: '{}' };
    const oci = {} as OciReader;
    const images: ImageDataSource = {
      ...unavailableImageData,
      oci: () => oci,
      trustedRoot: () => Promise.resolve(root),
    };
    const loaders = new ClusterContextLoaders(
      { get: () => undefined },
      setup().callersForReuse,
      { read: () => null },
      images,
    );
    expect(loaders.imageVerification?.oci({})).toBe(oci);
    await expect(loaders.imageVerification?.trustedRoot?.()).resolves.toBe(root);
    const withoutRoot = new ClusterContextLoaders(
      { get: () => undefined },
      setup().callersForReuse,
      { read: () => null },
      {
        ...unavailableImageData,
        oci: () => oci,
      },
    );
    expect(withoutRoot.imageVerification?.trustedRoot).toBeUndefined();
  });

  it('fails imageRegistry entries closed until a registry client is wired', async () => {
    const { loaders } = setup();
    await expect(loaders.imageRegistry('nginx:1.27', undefined, {})).rejects.toThrow(
      'imageRegistry nginx:1.27: imageRegistry context entries need the registry client',
    );
  });
});
