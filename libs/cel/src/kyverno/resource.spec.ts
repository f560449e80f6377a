import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { evaluateKyverno, FakeResourcePort } from '@edict/cel/testing';

const configMap = (namespace: string, name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data: { replicas: '3' },
});

const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'team-a' },
  spec: { replicas: 2 },
};

function port(): FakeResourcePort {
  return new FakeResourcePort(
    [
      { apiVersion: 'v1', resource: 'configmaps', object: configMap('team-a', 'settings', { tier: 'gold' }) },
      { apiVersion: 'v1', resource: 'configmaps', object: configMap('team-a', 'other') },
      { apiVersion: 'v1', resource: 'configmaps', object: configMap('team-b', 'settings', { tier: 'gold' }) },
      { apiVersion: 'apps/v1', resource: 'deployments', object: deployment },
    ],
    { 'v1/ConfigMap': 'configmaps', 'apps/v1/Deployment': 'deployments' },
    ['kube-system'],
  );
}

describe('resource library (cluster-wide policy)', () => {
  it('gets an object (whole numbers are ints, as in unstructured objects), and null when it does not exist', async () => {
    const resources = port();
    await expect(
      evaluateKyverno('resource.Get("apps/v1", "deployments", "team-a", "web").spec.replicas + 1', { resources }),
    ).resolves.toBe(3n);
    await expect(
      evaluateKyverno('resource.get("v1", "configmaps", "team-a", "missing")', { resources }),
    ).resolves.toBeNull();
  });

  it('lists in a namespace or everywhere, optionally by labels', async () => {
    const resources = port();
    await expect(
      evaluateKyverno('resource.List("v1", "configmaps", "team-a").items.size()', { resources }),
    ).resolves.toBe(2n);
    await expect(evaluateKyverno('resource.List("v1", "configmaps", "").items.size()', { resources })).resolves.toBe(
      3n,
    );
    await expect(
      evaluateKyverno('resource.list("v1", "configmaps", "", {"tier": "gold"}).items.map(i, i.metadata.namespace)', {
        resources,
      }),
    ).resolves.toEqual(['team-a', 'team-b']);
  });

  it('maps a kind to its resource with ToGVR and accepts the result in Get and List', async () => {
    const resources = port();
    await expect(
      evaluateKyverno('resource.Get(resource.ToGVR("apps/v1", "Deployment"), "team-a", "web").metadata.name', {
        resources,
      }),
    ).resolves.toBe('web');
    await expect(
      evaluateKyverno('resource.list(resource.toGVR("v1", "ConfigMap"), "team-b").items.size()', { resources }),
    ).resolves.toBe(1n);
    await expect(evaluateKyverno('resource.ToGVR("v1", "Nope")', { resources })).rejects.toThrow(
      /failed to map kind to resource: no matches for kind "Nope"/,
    );
  });

  it('creates objects (namespaced or cluster-scoped) and returns what was stored', async () => {
    const resources = port();
    await expect(
      evaluateKyverno(
        'resource.Post("v1", "configmaps", "team-a", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}}).metadata.namespace',
        { resources },
      ),
    ).resolves.toBe('team-a');
    await evaluateKyverno(
      'resource.post("v1", "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}})',
      {
        resources,
      },
    );
    expect(resources.created.map((c) => c.target)).toEqual([
      { apiVersion: 'v1', resource: 'configmaps', namespace: 'team-a' },
      { apiVersion: 'v1', resource: 'namespaces', namespace: '' },
    ]);
  });

  it('words a forbidden read as permission denied, and a missing port clearly', async () => {
    await expect(
      evaluateKyverno('resource.Get("v1", "configmaps", "kube-system", "x")', { resources: port() }),
    ).rejects.toThrow(/failed to get resource: permission denied: .*forbidden/);
    await expect(evaluateKyverno('resource.List("v1", "configmaps", "x")', {})).rejects.toThrow(
      /resource is not available/,
    );
  });
});

describe('resource library (namespaced policy)', () => {
  const scope = { policyNamespace: 'team-a' };

  it("reads, lists and creates in the policy's own namespace only", async () => {
    const resources = port();
    await expect(
      evaluateKyverno('resource.Get("v1", "configmaps", "settings").metadata.namespace', { resources }, scope),
    ).resolves.toBe('team-a');
    await expect(evaluateKyverno('resource.List("v1", "configmaps").items.size()', { resources }, scope)).resolves.toBe(
      2n,
    );
    await expect(
      evaluateKyverno(
        'resource.list(resource.toGVR("v1", "ConfigMap"), {"tier": "gold"}).items.size()',
        { resources },
        scope,
      ),
    ).resolves.toBe(1n);
    await evaluateKyverno('resource.Post("v1", "configmaps", {"metadata": {"name": "n"}})', { resources }, scope);
    expect(resources.reads.every((r) => r.namespace === 'team-a')).toBe(true);
    expect(resources.created[0]?.target.namespace).toBe('team-a');
  });
});
