import { describe, expect, it } from 'vitest';
import { apiPathNamespace, checkApiPathScope, checkConfigMapScope, ContextAccessError } from './policy-scope';

const namespaced = { policyNamespace: 'shop' };
const cluster = {};

describe('checkConfigMapScope', () => {
  it("lets a namespaced Policy read its own namespace's ConfigMaps and a ClusterPolicy any", () => {
    expect(() => checkConfigMapScope('shop', 'settings', namespaced)).not.toThrow();
    expect(() => checkConfigMapScope('kube-system', 'settings', cluster)).not.toThrow();
  });

  it('refuses a namespaced Policy reading another namespace, naming both', () => {
    expect(() => checkConfigMapScope('kube-system', 'settings', namespaced)).toThrow(
      'configMap kube-system/settings: a Policy in namespace "shop" may read ConfigMaps of its own namespace only, not of "kube-system"',
    );
  });
});

describe('apiPathNamespace', () => {
  it('finds the namespace of core and group paths', () => {
    expect(apiPathNamespace('/api/v1/namespaces/shop/pods')).toBe('shop');
    expect(apiPathNamespace('/api/v1/namespaces/shop')).toBe('shop');
    expect(apiPathNamespace('/apis/apps/v1/namespaces/shop/deployments/web?limit=1')).toBe('shop');
    expect(apiPathNamespace('/api/v1/namespaces/shop/pods/')).toBe('shop');
  });

  it('sees cluster-scoped and all-namespace paths as no namespace', () => {
    expect(apiPathNamespace('/api/v1/nodes')).toBeUndefined();
    expect(apiPathNamespace('/api/v1/pods')).toBeUndefined();
    expect(apiPathNamespace('/api/v1/namespaces')).toBeUndefined();
    expect(apiPathNamespace('/apis/rbac.authorization.k8s.io/v1/clusterroles')).toBeUndefined();
    expect(apiPathNamespace('/version')).toBeUndefined();
  });

  it('refuses paths a server could read differently than this check', () => {
    for (const path of [
      'api/v1/pods',
      '//evil.example/api',
      '@evil.example/api',
      '/api/v1/namespaces/shop/../kube-system/secrets',
      '/api/v1/namespaces/./shop/pods',
      '/api/v1/namespaces//pods',
      '/api/v1/namespaces/sh%6Fp/pods',
      '/api/v1/namespaces/shop/pods\\x',
      '/api/v1/namespaces/shop/pods#x',
      '/api/v1/namespaces/shop /pods',
    ]) {
      expect(() => apiPathNamespace(path), path).toThrow(ContextAccessError);
    }
  });
});

describe('checkApiPathScope', () => {
  it('lets a namespaced Policy call paths in its namespace, a ClusterPolicy any path', () => {
    expect(() => checkApiPathScope('/api/v1/namespaces/shop/configmaps', namespaced)).not.toThrow();
    expect(() => checkApiPathScope('/apis/apps/v1/namespaces/shop/deployments', namespaced)).not.toThrow();
    expect(() => checkApiPathScope('/api/v1/namespaces/kube-system/secrets', cluster)).not.toThrow();
    expect(() => checkApiPathScope('/api/v1/nodes', cluster)).not.toThrow();
  });

  it('refuses a namespaced Policy another namespace or a cluster-scoped path', () => {
    expect(() => checkApiPathScope('/api/v1/namespaces/kube-system/secrets', namespaced)).toThrow(
      /a Policy in namespace "shop" may call paths in its own namespace only .* not namespace "kube-system"/,
    );
    expect(() => checkApiPathScope('/api/v1/pods', namespaced)).toThrow(/not a cluster-scoped path/);
    expect(() => checkApiPathScope('/apis/apps/v1/deployments', namespaced)).toThrow(/not a cluster-scoped path/);
    expect(() => checkApiPathScope('/api/v1/namespaces/shop/../kube-system/secrets', namespaced)).toThrow(
      ContextAccessError,
    );
  });
});
