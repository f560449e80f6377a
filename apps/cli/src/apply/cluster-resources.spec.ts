import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '@edict/apiserver';
import { startServer, type Running } from '@edict/apiserver/testing';
import type { Policy } from '@edict/engine';
import { fetchClusterResources } from './cluster-resources';

const podPolicy: Policy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { deny: {} } }] },
};

const pod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

describe('fetchClusterResources', () => {
  let api: Running;
  let kubeconfig: string;

  beforeAll(async () => {
    api = await startServer();
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'edict-apply-')), 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor({ server: api.url }));
    for (const [name, labels] of [
      ['ns-1', { audit: 'false' }],
      ['ns-2', {}],
    ] as const) {
      await api.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels },
      });
    }
    await api.request('POST', '/api/v1/namespaces/ns-1/pods', pod('a', 'ns-1'));
    await api.request('POST', '/api/v1/namespaces/ns-2/pods', pod('b', 'ns-2'));
    await api.request('POST', '/api/v1/namespaces/ns-1/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
    });
  });

  afterAll(async () => {
    await api.server.stop();
  });

  it("reads the kinds the policies match, autogen ones included, with their namespaces' labels", async () => {
    const { resources, namespaceLabels } = await fetchClusterResources([podPolicy], { kubeconfig, names: [] });
    expect(
      resources.map((r) => `${r.apiVersion}/${r.kind}/${r.metadata?.namespace}/${r.metadata?.name}`).sort(),
    ).toEqual(['v1/Pod/ns-1/a', 'v1/Pod/ns-2/b']);
    expect(namespaceLabels['ns-1']).toMatchObject({ audit: 'false' });
  });

  it('keeps to one namespace, and to the named resources, which must exist', async () => {
    const inNs1 = await fetchClusterResources([podPolicy], { kubeconfig, namespace: 'ns-1', names: [] });
    expect(inNs1.resources.map((r) => r.metadata?.name)).toEqual(['a']);
    const named = await fetchClusterResources([podPolicy], { kubeconfig, names: ['b'] });
    expect(named.resources.map((r) => r.metadata?.name)).toEqual(['b']);
    await expect(fetchClusterResources([podPolicy], { kubeconfig, names: ['nope'] })).rejects.toThrow(
      'nope not found in cluster',
    );
  });

  const podAndNamespacePolicy: Policy = {
    ...podPolicy,
    spec: {
      rules: [{ ...podPolicy.spec.rules![0], match: { any: [{ resources: { kinds: ['Pod', 'Namespace'] } }] } }],
    },
  };
  const names = (resources: readonly { kind?: string; metadata?: { name?: string } }[]) =>
    resources.map((r) => `${r.kind}/${r.metadata?.name}`).sort();

  it('--cluster-wide-resources: the cluster-scoped resources, with a namespace also those of the namespace', async () => {
    const clusterWide = await fetchClusterResources([podAndNamespacePolicy], {
      kubeconfig,
      names: [],
      clusterWide: true,
    });
    expect(names(clusterWide.resources)).toEqual(expect.arrayContaining(['Namespace/ns-1', 'Namespace/ns-2']));
    expect(names(clusterWide.resources).filter((n) => n.startsWith('Pod/'))).toEqual([]);
    const withNamespace = await fetchClusterResources([podAndNamespacePolicy], {
      kubeconfig,
      names: [],
      clusterWide: true,
      namespace: 'ns-1',
    });
    expect(names(withNamespace.resources)).toEqual(
      expect.arrayContaining(['Namespace/ns-1', 'Namespace/ns-2', 'Pod/a']),
    );
    expect(names(withNamespace.resources)).not.toContain('Pod/b');
    const namespaceOnly = await fetchClusterResources([podAndNamespacePolicy], {
      kubeconfig,
      names: [],
      namespace: 'ns-1',
    });
    expect(names(namespaceOnly.resources)).toEqual(['Pod/a']);
  });

  it('--batch-size and --concurrent read every object, page by page and in parallel', async () => {
    const all = await fetchClusterResources([podAndNamespacePolicy], { kubeconfig, names: [] });
    const paged = await fetchClusterResources([podAndNamespacePolicy], {
      kubeconfig,
      names: [],
      batchSize: 1,
      concurrent: 4,
    });
    expect(names(paged.resources)).toEqual(names(all.resources));
    expect(names(paged.resources)).toEqual(expect.arrayContaining(['Pod/a', 'Pod/b']));
  });
});
