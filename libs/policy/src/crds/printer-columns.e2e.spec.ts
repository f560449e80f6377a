// The CRDs' printer columns through the real kubectl: what `kubectl get polr -o wide` and `kubectl get cpol` show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import {
  hasKubectl,
  kubectlSession,
  MISSING_KUBECTL,
  skipWithoutKubectl,
  tableRows,
  type KubectlSession,
} from '@edict/apiserver/testing';
import { installPolicyCrds } from './install-crds';

const summary = (pass: number, fail: number) => ({ pass, fail, warn: 0, error: 0, skip: 1 });
const scope = (kind: string, name: string, namespace?: string) => ({
  apiVersion: kind === 'Namespace' ? 'v1' : 'apps/v1',
  kind,
  name,
  ...(namespace ? { namespace } : {}),
  uid: `uid-${name}`,
});

const age = expect.stringMatching(/^\d+s$/) as unknown as string;

if (!hasKubectl) {
  it.skipIf(skipWithoutKubectl)('needs kubectl', () => {
    throw new Error(MISSING_KUBECTL);
  });
}

describe.skipIf(!hasKubectl)('printer columns in kubectl', () => {
  const server = new InMemoryApiServer();
  let kubectl: KubectlSession;

  beforeAll(async () => {
    installPolicyCrds(server);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    server.create({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: 'PolicyReport',
      metadata: { name: 'uid-web', namespace: 'team' },
      scope: scope('Deployment', 'web', 'team'),
      summary: summary(3, 1),
      results: [],
    });
    server.create({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: 'ClusterPolicyReport',
      metadata: { name: 'uid-team' },
      scope: scope('Namespace', 'team'),
      summary: summary(0, 2),
      results: [],
    });
    kubectl = kubectlSession((await server.start()).url);
  });

  afterAll(async () => {
    kubectl?.close();
    await server.stop();
  });

  it("shows Kyverno's columns for PolicyReports, with -A and -o wide alike", async () => {
    const header = ['NAME', 'KIND', 'NAME', 'PASS', 'FAIL', 'WARN', 'ERROR', 'SKIP', 'AGE'];
    const report = ['uid-web', 'Deployment', 'web', '3', '1', '0', '0', '1', age];
    expect(tableRows(await kubectl.run('get', 'polr', '-A', '-o', 'wide'))).toEqual([
      ['NAMESPACE', ...header],
      ['team', ...report],
    ]);
    expect(tableRows(await kubectl.run('get', 'polr', '-n', 'team'))).toEqual([header, report]);
  });

  it("shows Kyverno's ClusterPolicy columns, READY and MESSAGE from the Ready condition", async () => {
    server.create({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'require-labels' },
      spec: { admission: true, background: false, failurePolicy: 'Fail', rules: [] },
    });
    const status = {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Succeeded',
          message: 'Ready',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
      rulecount: { validate: 2, mutate: 0, generate: 0, verifyimages: 0 },
    };
    await kubectl.run(
      'patch',
      'cpol',
      'require-labels',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    );
    expect(tableRows(await kubectl.run('get', 'cpol'))).toEqual([
      ['NAME', 'ADMISSION', 'BACKGROUND', 'READY', 'AGE', 'MESSAGE'],
      ['require-labels', 'true', 'false', 'True', age, 'Ready'],
    ]);
    expect(tableRows(await kubectl.run('get', 'cpol', '-o', 'wide'))[1]).toEqual([
      'require-labels',
      'true',
      'false',
      'True',
      age,
      'Fail',
      '2',
      '0',
      '0',
      '0',
      'Ready',
    ]);
  });

  it("shows ADMISSION and BACKGROUND true for a policy that leaves them out (the CRD's defaults)", async () => {
    server.create({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'defaults' },
      spec: { rules: [] },
    });
    // No status yet: READY and MESSAGE are empty (tableRows drops empty cells).
    expect(tableRows(await kubectl.run('get', 'cpol', 'defaults'))).toEqual([
      ['NAME', 'ADMISSION', 'BACKGROUND', 'READY', 'AGE', 'MESSAGE'],
      ['defaults', 'true', 'true', age],
    ]);
  });

  it('shows them for ClusterPolicyReports', async () => {
    expect(tableRows(await kubectl.run('get', 'cpolr', '-o', 'wide'))).toEqual([
      ['NAME', 'KIND', 'NAME', 'PASS', 'FAIL', 'WARN', 'ERROR', 'SKIP', 'AGE'],
      ['uid-team', 'Namespace', 'team', '0', '2', '0', '0', '1', age],
    ]);
  });

  it("shows Kyverno's columns for the CEL MutatingPolicy, GeneratingPolicy and DeletingPolicy kinds, by short name", async () => {
    const pods = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    };
    const mutations = [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }];
    server.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'add-labels' },
      spec: { matchConstraints: pods, mutations },
    });
    server.create({
      apiVersion: 'policies.kyverno.io/v1beta1',
      kind: 'NamespacedMutatingPolicy',
      metadata: { name: 'local-labels', namespace: 'team' },
      spec: { matchConstraints: pods, mutations },
    });
    server.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'GeneratingPolicy',
      metadata: { name: 'copy-secret' },
      spec: { matchConstraints: pods, generate: [{ expression: 'generator.Apply("team", [])' }] },
    });
    server.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'NamespacedGeneratingPolicy',
      metadata: { name: 'local-copy', namespace: 'team' },
      spec: { matchConstraints: pods, generate: [{ expression: 'generator.Apply([])' }] },
    });
    server.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'DeletingPolicy',
      metadata: { name: 'old-pods' },
      spec: { matchConstraints: pods, schedule: '*/5 * * * *' },
    });
    server.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'NamespacedDeletingPolicy',
      metadata: { name: 'local-old-pods', namespace: 'team' },
      spec: { matchConstraints: pods, schedule: '@hourly' },
    });
    const ready = { conditionStatus: { ready: true, conditions: [], message: '' } };
    await kubectl.run(
      'patch',
      'mpol',
      'add-labels',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: ready }),
    );
    expect(tableRows(await kubectl.run('get', 'mpol'))).toEqual([
      ['NAME', 'AGE', 'READY'],
      ['add-labels', age, 'true'],
    ]);
    // No status yet: READY is empty (tableRows drops empty cells).
    expect(tableRows(await kubectl.run('get', 'nmpol', '-n', 'team'))).toEqual([
      ['NAME', 'AGE', 'READY'],
      ['local-labels', age],
    ]);
    // Kyverno shows no READY column for generating policies.
    expect(tableRows(await kubectl.run('get', 'gpol'))).toEqual([
      ['NAME', 'AGE'],
      ['copy-secret', age],
    ]);
    expect(tableRows(await kubectl.run('get', 'ngpol', '-A'))).toEqual([
      ['NAMESPACE', 'NAME', 'AGE'],
      ['team', 'local-copy', age],
    ]);
    expect(tableRows(await kubectl.run('get', 'dpol'))).toEqual([
      ['NAME', 'AGE', 'READY'],
      ['old-pods', age],
    ]);
    expect(tableRows(await kubectl.run('get', 'ndpol', '-n', 'team'))).toEqual([
      ['NAME', 'AGE', 'READY'],
      ['local-old-pods', age],
    ]);
  });
});
