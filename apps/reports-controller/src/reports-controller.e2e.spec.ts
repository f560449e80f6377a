/**
 * End to end through the in-memory API server: the admission controller writes admission reports
 * for an Audit policy, the reports controller (two replicas, one leader) merges them into the
 * Pod's PolicyReport: a violation appears as fail, the fixed Pod turns to pass, the deleted Pod's
 * report goes (owner reference, garbage collector), a deleted policy's results go, and the follower
 * never writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import {
  requireLabelPolicy,
  startE2eCluster,
  testPod,
  waitForWebhook,
  type E2eCluster,
} from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller';
import { ReportsControllerMetrics } from './metrics/reports-controller-metrics';
import { startTestReports } from './testing/start-test-reports';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('reports controller', () => {
  let cluster: E2eCluster;
  const replicas: RunningHttpController[] = [];
  const leader = () => replicas.find((replica) => replica.app.get(LeaderService).isLeader());
  const reconciles = (replica: RunningHttpController) => replica.app.get(ReportsControllerMetrics).reconcileCount();
  const policyReport = (uid: string) =>
    cluster.apiServer.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, 'default') as Obj | undefined;
  const admissionReports = () => cluster.apiServer.list('reports.kyverno.io/v1', 'EphemeralReport', 'default');
  let podUid = '';

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica();
    for (const identity of ['reports-a', 'reports-b']) {
      replicas.push(await startTestReports(cluster, { leaseIdentity: identity }));
    }
    await eventually(() => leader() !== undefined, 'a reports leader');
    await cluster.createClusterPolicy(requireLabelPolicy('Audit', 'require-team', 'team'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it("puts an Audit violation at admission into the Pod's PolicyReport, and deletes the admission report", async () => {
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('web') as Obj });
    podUid = created.metadata!.uid!;
    await eventually(() => policyReport(podUid) !== undefined, 'the PolicyReport', 15_000);
    expect(policyReport(podUid)).toMatchObject({
      metadata: {
        labels: { 'app.kubernetes.io/managed-by': 'kyverno' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: podUid }],
      },
      scope: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: podUid },
      summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
      results: [{ policy: 'require-team', rule: 'check-team', result: 'fail', source: 'kyverno', scored: true }],
    });
    await eventually(() => admissionReports().length === 0, 'the admission report merged and deleted', 10_000);
  }, 30_000);

  it('turns the report to pass once the Pod is fixed', async () => {
    await cluster.core.patchNamespacedPod({
      name: 'web',
      namespace: 'default',
      body: [{ op: 'add', path: '/metadata/labels/team', value: 'shop' }],
    });
    await eventually(() => policyReport(podUid)?.summary?.pass === 1, 'the report at pass', 15_000);
    expect(policyReport(podUid)!.summary).toMatchObject({ pass: 1, fail: 0 });
    expect(policyReport(podUid)!.results).toHaveLength(1);
  }, 30_000);

  it("removes a deleted Pod's report", async () => {
    await cluster.core.deleteNamespacedPod({ name: 'web', namespace: 'default' });
    await eventually(() => policyReport(podUid) === undefined, 'the report gone', 15_000);
  }, 30_000);

  it("drops a deleted policy's results: a report left empty goes", async () => {
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('api') as Obj });
    const uid = created.metadata!.uid!;
    await eventually(() => policyReport(uid) !== undefined, 'the PolicyReport', 15_000);
    expect(policyReport(uid)!.metadata.labels).toMatchObject({ 'cpol.kyverno.io/require-team': expect.any(String) });
    await cluster.deleteClusterPolicy('require-team');
    await eventually(() => policyReport(uid) === undefined, 'the report without results deleted', 15_000);
    expect(cluster.apiServer.get('v1', 'Pod', 'api', 'default')).toBeDefined();
  }, 30_000);

  it('writes from the leader only', async () => {
    const follower = replicas.find((replica) => replica !== leader())!;
    expect(await reconciles(follower)).toBe(0);
    expect(await reconciles(leader()!)).toBeGreaterThanOrEqual(2);
  });
});
