import { describe, expect, it } from 'vitest';
import { evaluateKyverno, FakeGlobalContextPort } from '@edict/cel/testing';

describe('globalContext library', () => {
  const globalContext = new FakeGlobalContextPort({
    'allowed-registries': { registries: ['ghcr.io', 'registry.k8s.io'], count: 2 },
    'deployments/replicas': [1, 3],
    'cluster-config': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, spec: { size: 4 } },
  });

  it('reads an entry (decoded JSON: numbers are doubles) and a projection', async () => {
    await expect(
      evaluateKyverno('"ghcr.io" in globalContext.Get("allowed-registries", "").registries', { globalContext }),
    ).resolves.toBe(true);
    await expect(
      evaluateKyverno('globalContext.get("allowed-registries").count == 2.0', { globalContext }),
    ).resolves.toBe(true);
    await expect(evaluateKyverno('globalContext.Get("deployments", "replicas")', { globalContext })).resolves.toEqual([
      1, 3,
    ]);
  });

  it('reads a Kubernetes object as unstructured content (whole numbers are ints)', async () => {
    await expect(evaluateKyverno('globalContext.Get("cluster-config").spec.size + 1', { globalContext })).resolves.toBe(
      5n,
    );
  });

  it('answers null for an entry that does not exist', async () => {
    await expect(evaluateKyverno('globalContext.Get("nope", "")', { globalContext })).resolves.toBeNull();
  });

  it('is refused to a namespaced policy (entries are cluster-wide) and fails without a port', async () => {
    await expect(
      evaluateKyverno('globalContext.Get("allowed-registries", "")', { globalContext }, { policyNamespace: 'team-a' }),
    ).rejects.toThrow(/globalContext\.\* is not allowed in namespaced policies/);
    await expect(evaluateKyverno('globalContext.Get("x", "")', {})).rejects.toThrow(/globalContext is not available/);
  });

  it('compares a missing entry with null (the answer is dyn, as Kyverno declares it)', async () => {
    const globalContext = new FakeGlobalContextPort({ present: { count: 1 } });
    await expect(evaluateKyverno('globalContext.get("missing-entry", "") != null', { globalContext })).resolves.toBe(
      false,
    );
    await expect(evaluateKyverno('globalContext.get("present", "") != null', { globalContext })).resolves.toBe(true);
    await expect(
      evaluateKyverno(
        'globalContext.get("non-existent", "count") == null || globalContext.get("non-existent", "count") >= 0',
        {
          globalContext,
        },
      ),
    ).resolves.toBe(true);
  });
});
