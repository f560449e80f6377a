import { describe, expect, it } from 'vitest';
import { kubeSpan } from './kube-span';

describe("an API call's span (Kyverno's KUBE <client>/<kind>/<operation>)", () => {
  it.each([
    ['GET', '/api/v1/namespaces/default/configmaps/settings', 'KUBE core/configmaps/Get', 'default'],
    ['GET', '/apis/apps/v1/deployments?limit=10', 'KUBE apps/deployments/List', ''],
    ['POST', '/apis/kyverno.io/v2/namespaces/x/updaterequests', 'KUBE kyverno.io/updaterequests/Create', 'x'],
    ['PATCH', '/apis/kyverno.io/v1/clusterpolicies/p/status', 'KUBE kyverno.io/clusterpolicies/PatchStatus', ''],
    ['DELETE', '/api/v1/namespaces/default/pods', 'KUBE core/pods/DeleteCollection', 'default'],
    ['GET', '/api/v1/namespaces/kube-system', 'KUBE core/namespaces/Get', ''],
  ])('%s %s is %s', (method, path, name, namespace) => {
    const span = kubeSpan(method, path);
    expect(span.name).toBe(name);
    expect(span.attributes['kube.client.namespace']).toBe(namespace);
  });
});
