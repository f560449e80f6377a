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
});
