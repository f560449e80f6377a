import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '@edict/apiserver';
import { startServer, type Running } from '@edict/apiserver/testing';
import { runCli as cli } from '../../testing/run-cli';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

const crd = (storage: 'v1alpha1' | 'v1') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1alpha1', served: true, storage: storage === 'v1alpha1', schema },
      { name: 'v1', served: true, storage: storage === 'v1', schema },
    ],
  },
});

interface Crd {
  status: { storedVersions: string[] };
}

describe('edict migrate', () => {
  let api: Running;
  let kubeconfig: string;

  beforeAll(async () => {
    api = await startServer();
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'edict-migrate-')), 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor({ server: api.url }));
    await api.request('POST', CRDS, crd('v1alpha1'));
    for (const [namespace, name] of [
      ['default', 'a'],
      ['team', 'b'],
    ]) {
      if (namespace !== 'default') {
        await api.request('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: namespace },
        });
      }
      await api.request('POST', `/apis/example.com/v1alpha1/namespaces/${namespace}/widgets`, {
        apiVersion: 'example.com/v1alpha1',
        kind: 'Widget',
        metadata: { name },
        spec: { size: 1 },
      });
    }
    // The storage version moves to v1: the CRD now lists both as stored.
    const current = (await api.request('GET', `${CRDS}/widgets.example.com`)).body as { metadata: object };
    await api.request('PUT', `${CRDS}/widgets.example.com`, { ...crd('v1'), metadata: current.metadata });
  });

  afterAll(async () => {
    await api.server.stop();
  });

  const get = async (path: string) => (await api.request('GET', path)).body as unknown as Crd;

  it('re-stores every object in the storage version, then lists it as the only stored version', async () => {
    expect((await get(`${CRDS}/widgets.example.com`)).status.storedVersions).toEqual(['v1alpha1', 'v1']);
    api.server.requests.start();
    const run = await cli(['migrate', '--kubeconfig', kubeconfig, '--resource', 'widgets.example.com']);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toBe(
      [
        'migrating resource: widgets.example.com ...',
        'stored version: v1',
        'migrating resources...',
        'patching status...',
        '',
      ].join('\n'),
    );
    expect((await get(`${CRDS}/widgets.example.com`)).status.storedVersions).toEqual(['v1']);
    // Each object written back through the storage version, then the status.
    expect(api.server.requests.requests({ method: 'PUT', succeeded: true }).map((r) => r.path)).toEqual([
      '/apis/example.com/v1/namespaces/default/widgets/a',
      '/apis/example.com/v1/namespaces/team/widgets/b',
      `${CRDS}/widgets.example.com/status`,
    ]);
    api.server.requests.stop();

    const again = await cli(['migrate', '--kubeconfig', kubeconfig, '--resource', 'widgets.example.com']);
    expect(again.out).toBe(
      'migrating resource: widgets.example.com ...\nstored version: v1\nstored version is already up to date, nothing to do\n',
    );
  });

  it('fails on a CRD the cluster does not have, and does nothing without --resource', async () => {
    const missing = await cli(['migrate', '--kubeconfig', kubeconfig, '--resource', 'nopes.example.com']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^Error: .*nopes\.example\.com.*not found/);
    expect(await cli(['migrate', '--kubeconfig', kubeconfig])).toMatchObject({ code: 0, out: '', err: '' });
    expect((await cli(['migrate', '--help'])).out).toContain('edict migrate --resource policyexceptions.kyverno.io');
  });
});
