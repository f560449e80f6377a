import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import { readCrdManifests } from './crd-manifests';
import { installPolicyCrds } from './install-crds';

describe('installPolicyCrds', () => {
  it('creates every CRD of charts/edict/files/crds, which the server then serves', () => {
    const server = new InMemoryApiServer();
    const created = installPolicyCrds(server);
    expect(created).toContain('clusterpolicies.kyverno.io');
    expect(created).toContain('policyexceptions.kyverno.io');
    expect(created).toHaveLength(readCrdManifests().length);
    // Served at once: a ClusterPolicy can be stored.
    server.create({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: {} });
    expect(server.get('kyverno.io/v1', 'ClusterPolicy', 'p')).toBeDefined();
  });

  it('serves the cleanup policies as kyverno.io/v2 and v2beta1 and refuses one without a schedule', () => {
    const server = new InMemoryApiServer();
    installPolicyCrds(server);
    const spec = { match: { any: [{ resources: { kinds: ['Pod'] } }] }, schedule: '*/5 * * * *' };
    server.create({ apiVersion: 'kyverno.io/v2', kind: 'ClusterCleanupPolicy', metadata: { name: 'c' }, spec });
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    server.create({
      apiVersion: 'kyverno.io/v2beta1',
      kind: 'CleanupPolicy',
      metadata: { name: 'n', namespace: 'team' },
      spec,
    });
    expect(server.get('kyverno.io/v2', 'CleanupPolicy', 'n', 'team')).toBeDefined();
    expect(() =>
      server.create({ apiVersion: 'kyverno.io/v2', kind: 'ClusterCleanupPolicy', metadata: { name: 'x' }, spec: {} }),
    ).toThrow(/schedule/);
  });

  it('leaves CRDs that exist alone and creates only the missing ones', () => {
    const server = new InMemoryApiServer();
    installPolicyCrds(server);
    expect(installPolicyCrds(server)).toEqual([]);
  });

  it('reads another folder when given one, and names a broken file', () => {
    const directory = mkdtempSync(join(tmpdir(), 'edict-crds-'));
    writeFileSync(join(directory, 'broken.yaml'), 'kind: CustomResourceDefinition\nmetadata: [unclosed\n');
    expect(() => installPolicyCrds(new InMemoryApiServer(), directory)).toThrow(/broken\.yaml/);
  });
});
