/**
 * End to end through the in-memory API server: the admission controller writes admission reports
 * for an Audit policy, the reports controller (two replicas, one leader) merges them into the
 * Pod's PolicyReport: a violation appears as fail, the fixed Pod turns to pass, the deleted Pod's
 * report goes (owner reference, garbage collector), a deleted policy's results go, and the follower
 * never writes. Background scans: a background-only policy added later finds an existing Pod's
 * violation (with a `kyverno-scan` Event), the fixed Pod turns to pass, and the periodic pass does
 * not evaluate unchanged Pods again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { ReportsControllerMetrics, startTestReports } from '@edict/reports-controller/testing';
import { requireLabelPolicy, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCAN_INTERVAL_MS = 1_500;

/** A policy only background scans run (`admission: false`): what they report cannot come from admission. */
function backgroundOnlyPolicy(name: string, label: string) {
  const policy = requireLabelPolicy('Audit', name, label);
  return { ...policy, spec: { ...policy.spec, background: true, admission: false } };
}

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
      replicas.push(
        await startTestReports(cluster, { leaseIdentity: identity, backgroundScanIntervalMs: SCAN_INTERVAL_MS }),
      );
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

  it('finds the violation of a Pod that existed before its policy, by background scan', async () => {
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('old') as Obj });
    const uid = created.metadata!.uid!;
    await cluster.createClusterPolicy(backgroundOnlyPolicy('require-owner', 'owner'));
    await eventually(() => policyReport(uid)?.summary?.fail === 1, 'the background scan result', 15_000);
    expect(policyReport(uid)).toMatchObject({
      scope: { kind: 'Pod', name: 'old', uid },
      results: [{ policy: 'require-owner', rule: 'check-owner', result: 'fail', source: 'kyverno' }],
    });
    const scanEvents = () =>
      cluster.apiServer
        .list('events.k8s.io/v1', 'Event', 'default')
        .filter((event: Obj) => event.reportingController === 'kyverno-scan' && event.regarding?.name === 'old');
    await eventually(() => scanEvents().length > 0, 'a kyverno-scan event', 10_000);
    expect(scanEvents()[0]).toMatchObject({ reason: 'PolicyViolation', type: 'Warning' });
  }, 30_000);

  it('turns the background result to pass once the Pod is fixed', async () => {
    const uid = (cluster.apiServer.get('v1', 'Pod', 'old', 'default') as Obj).metadata.uid as string;
    await cluster.core.patchNamespacedPod({
      name: 'old',
      namespace: 'default',
      body: [{ op: 'add', path: '/metadata/labels/owner', value: 'ops' }],
    });
    await eventually(() => policyReport(uid)?.summary?.pass === 1, 'the report at pass', 15_000);
    expect(policyReport(uid)!.results).toEqual([expect.objectContaining({ rule: 'check-owner', result: 'pass' })]);
  }, 30_000);

  it('does not evaluate unchanged Pods again on the next periodic pass', async () => {
    const metrics = leader()!.app.get(ReportsControllerMetrics);
    const evaluated = await metrics.scanCount('evaluated');
    const unchanged = await metrics.scanCount('unchanged');
    const deadline = Date.now() + SCAN_INTERVAL_MS * 5;
    while ((await metrics.scanCount('unchanged')) < unchanged + 2) {
      if (Date.now() > deadline) throw new Error('timed out waiting for a periodic pass over the Pods');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await metrics.scanCount('evaluated')).toBe(evaluated);
  }, 30_000);

  it('writes from the leader only', async () => {
    const follower = replicas.find((replica) => replica !== leader())!;
    expect(await reconciles(follower)).toBe(0);
    expect(await follower.app.get(ReportsControllerMetrics).scanCount('evaluated')).toBe(0);
    expect(await reconciles(leader()!)).toBeGreaterThanOrEqual(2);
  });
});
