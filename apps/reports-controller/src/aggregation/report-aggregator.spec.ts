import { describe, expect, it } from 'vitest';
import { isConflict } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import {
  buildAdmissionReport,
  buildBackgroundReport,
  type PolicyReportObject,
  type PolicyReportResult,
} from '@edict/reports';
import { reportInputOf } from '@edict/reports/testing';
import { FakeReportsCluster } from '../testing/fake-reports-cluster';
import type { KnownPolicy } from './known-policies';
import { ReportAggregator, type AggregatorOptions } from './report-aggregator';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const GRACE = 60_000;
const POD_UID = 'pod-uid-1';

function result(outcome: PolicyReportResult['result'], seconds: number, rule = 'check-team'): PolicyReportResult {
  return {
    source: 'kyverno',
    policy: 'require-team',
    rule,
    result: outcome,
    scored: true,
    message: `${rule} ${outcome}`,
    timestamp: { seconds, nanos: 0 },
  };
}

function setup(
  policies: Record<string, string[]> = { 'require-team': ['check-team', 'check-owner'] },
  options: Partial<AggregatorOptions> = {},
) {
  const cluster = new FakeReportsCluster();
  cluster.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: POD_UID } });
  const known = (key: string): KnownPolicy | undefined =>
    policies[key] && { kind: 'ClusterPolicy', name: key, resourceVersion: '7', rules: new Set(policies[key]) };
  const aggregator = new ReportAggregator(cluster, known, {
    graceMs: GRACE,
    pendingRetryMs: 500,
    now: () => NOW,
    ...options,
  });
  const admit = (requestUid: string, results: PolicyReportResult[], ageMs = GRACE * 2) => {
    const admission = buildAdmissionReport(reportInputOf({ requestUid, results }));
    admission.metadata.creationTimestamp = new Date(NOW - ageMs).toISOString();
    return cluster.put(admission as unknown as KubeObject);
  };
  const scan = (results: PolicyReportResult[], seconds: number) => {
    const background = buildBackgroundReport({
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: POD_UID },
      resourceHash: 'hash',
      policies: [{ kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '7' }],
      results,
      scannedAt: new Date(seconds * 1000),
    });
    background.metadata.creationTimestamp = new Date(NOW - GRACE * 2).toISOString();
    return cluster.put(background as unknown as KubeObject);
  };
  const report = () => cluster.all('PolicyReport')[0] as PolicyReportObject | undefined;
  const admissionReports = () => cluster.all('EphemeralReport').map((object) => object.metadata?.name);
  return { cluster, aggregator, admit, scan, report, admissionReports, policies };
}

describe('ReportAggregator', () => {
  it('writes an openreports.io Report with the same content when OpenReports output is on (--openreportsEnabled)', async () => {
    const { cluster, aggregator, admit } = setup(undefined, { format: 'openreports' });
    admit('req-1', [result('fail', 100)]);
    expect((await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).report).toBe('created');
    expect(cluster.all('PolicyReport')).toEqual([]);
    expect(cluster.all('Report')[0]).toMatchObject({
      apiVersion: 'openreports.io/v1alpha1',
      kind: 'Report',
      metadata: { name: POD_UID, namespace: 'default', labels: { 'app.kubernetes.io/managed-by': 'kyverno' } },
      scope: { kind: 'Pod', name: 'web', uid: POD_UID },
      summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
      results: [{ policy: 'require-team', rule: 'check-team', result: 'fail', source: 'kyverno' }],
    });
  });

  it('keeps only the allowed result types (--allowedResults), and writes no report when none is left', async () => {
    const { aggregator, admit, report } = setup(undefined, { allowedResults: ['fail'] });
    admit('req-1', [result('pass', 100), result('fail', 100, 'check-owner')]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    expect(report()?.results.map((r) => [r.rule, r.result])).toEqual([['check-owner', 'fail']]);
    admit('req-2', [result('pass', 200, 'check-owner')]);
    expect((await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).report).toBe('deleted');
    expect(report()).toBeUndefined();
  });

  it("writes the resource's PolicyReport from its admission report, then deletes the admission report", async () => {
    const { aggregator, admit, report, admissionReports } = setup();
    admit('req-1', [result('fail', 100)]);
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toEqual({
      report: 'created',
      merged: 1,
    });
    expect(report()).toMatchObject({
      metadata: {
        name: POD_UID,
        namespace: 'default',
        labels: { 'app.kubernetes.io/managed-by': 'kyverno', 'cpol.kyverno.io/require-team': '7' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: POD_UID }],
      },
      scope: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: POD_UID },
      summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
      results: [{ policy: 'require-team', rule: 'check-team', result: 'fail', source: 'kyverno', scored: true }],
    });
    expect(admissionReports()).toEqual([]);
  });

  it('keeps the newest result per rule: a fixed resource turns to pass, other rules stay', async () => {
    const { aggregator, admit, report } = setup();
    admit('req-1', [result('fail', 100), result('pass', 100, 'check-owner')]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    admit('req-2', [result('pass', 100)], GRACE);
    admit('req-0', [result('fail', 90)], GRACE * 3); // older than what the report holds: ignored
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({
      report: 'updated',
      merged: 2,
    });
    expect(report()!.results.map((r) => `${r.rule}=${r.result}`)).toEqual(['check-owner=pass', 'check-team=pass']);
    expect(report()!.summary).toMatchObject({ pass: 2, fail: 0 });
  });

  it("merges a background scan: it replaces its policy's older results, a newer admission result stays", async () => {
    const { aggregator, admit, scan, report, admissionReports } = setup();
    admit('req-1', [result('fail', 100), result('fail', 100, 'check-owner')]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    scan([result('pass', 200)], 200); // check-owner no longer applies: the scan says nothing of it
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ merged: 1 });
    expect(report()!.results.map((r) => `${r.rule}=${r.result}`)).toEqual(['check-team=pass']);
    expect(admissionReports()).toEqual([]);
    admit('req-2', [result('fail', 300, 'check-owner')]);
    scan([result('pass', 250)], 250); // older than the admission result: does not drop it
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    expect(report()!.results.map((r) => `${r.rule}=${r.result}`)).toEqual(['check-owner=fail', 'check-team=pass']);
  });

  it('changes nothing when run again (another leader, a relist)', async () => {
    const { cluster, aggregator, admit } = setup();
    admit('req-1', [result('fail', 100)]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    cluster.writes.length = 0;
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toEqual({
      report: 'unchanged',
      merged: 0,
    });
    expect(cluster.writes).toEqual([]);
  });

  it('fails with a conflict, not a lost update, when another leader wrote meanwhile; the retry converges', async () => {
    const { cluster, aggregator, admit, report } = setup();
    admit('req-1', [result('fail', 100)]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    admit('req-2', [result('pass', 101)]);
    cluster.beforeWrite = (verb) => {
      cluster.beforeWrite = undefined;
      if (verb === 'replace') cluster.put(report()!); // the other leader's write moves the resourceVersion
    };
    const error = await aggregator.reconcile({ namespace: 'default', uid: POD_UID }).catch((caught: unknown) => caught);
    expect(isConflict(error)).toBe(true);
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ report: 'updated' });
    expect(report()!.results[0]!.result).toBe('pass');
  });

  it('leaves an admission report that changed after it was read (another webhook merged into it)', async () => {
    const { cluster, aggregator, admit, admissionReports } = setup();
    admit('req-1', [result('fail', 100)]);
    cluster.beforeWrite = (verb, name) => {
      if (verb === 'delete' && name === 'req-1') cluster.put(cluster.all('EphemeralReport')[0]!);
    };
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    expect(admissionReports()).toEqual(['req-1']);
  });

  it('drops results of deleted policies and removed rules, and deletes a report left empty', async () => {
    const { aggregator, admit, report, policies } = setup();
    admit('req-1', [result('fail', 100), result('pass', 100, 'check-owner')]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    policies['require-team'] = ['check-owner'];
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ report: 'updated' });
    expect(report()!.results.map((r) => r.rule)).toEqual(['check-owner']);
    delete policies['require-team'];
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ report: 'deleted' });
    expect(report()).toBeUndefined();
  });

  it('waits, within the grace period, for a policy its cache does not know yet', async () => {
    const { aggregator, admit, report, admissionReports, policies } = setup({});
    admit('req-1', [result('fail', 100)], 1_000);
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toEqual({
      report: 'none',
      merged: 0,
      retryAfterMs: 500,
    });
    expect(admissionReports()).toEqual(['req-1']);
    policies['require-team'] = ['check-team'];
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ report: 'created' });
    expect(report()!.results).toHaveLength(1);
  });

  it("deletes a gone resource's report; its young admission reports wait out the grace period", async () => {
    const { cluster, aggregator, admit, report, admissionReports } = setup();
    admit('req-1', [result('fail', 100)]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    cluster.objects.delete('v1/Pod/default/web');
    admit('req-2', [result('pass', 101)], GRACE - 5_000);
    admit('req-3', [result('pass', 102)], GRACE + 5_000);
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toEqual({
      report: 'deleted',
      merged: 1,
      retryAfterMs: 5_000,
    });
    expect(report()).toBeUndefined();
    expect(admissionReports()).toEqual(['req-2']);
  });

  it('treats a resource recreated under the same name (another uid) as gone', async () => {
    const { cluster, aggregator, admit, report } = setup();
    admit('req-1', [result('fail', 100)]);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    cluster.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'another' } });
    expect(await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).toMatchObject({ report: 'deleted' });
    expect(report()).toBeUndefined();
  });

  it('merges ValidatingPolicy results beside classic ones of the same name, keeping whatever rule names their engine gives', async () => {
    const cluster = new FakeReportsCluster();
    cluster.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: POD_UID } });
    const known = (key: string): KnownPolicy | undefined =>
      key === 'require-team'
        ? { kind: 'ClusterPolicy', name: key, resourceVersion: '7', rules: new Set(['check-team']) }
        : key === 'vpol:require-team'
          ? { kind: 'ValidatingPolicy', name: 'require-team', resourceVersion: '9' }
          : undefined;
    const aggregator = new ReportAggregator(cluster, known, { graceMs: GRACE, now: () => NOW });
    const vpol = { ...result('fail', 100, 'require-team'), source: 'KyvernoValidatingPolicy' };
    const stale = { ...result('pass', 100, 'other'), source: 'KyvernoValidatingPolicy', policy: 'gone' };
    const admission = buildAdmissionReport(
      reportInputOf({ requestUid: 'r-1', results: [result('pass', 100), vpol, stale] }),
    );
    admission.metadata.creationTimestamp = new Date(NOW - GRACE * 2).toISOString();
    cluster.put(admission as unknown as KubeObject);
    await aggregator.reconcile({ namespace: 'default', uid: POD_UID });
    const report = cluster.all('PolicyReport')[0] as PolicyReportObject;
    expect(report.results.map((r) => [r.source, r.policy, r.rule, r.result])).toEqual([
      ['kyverno', 'require-team', 'check-team', 'pass'],
      ['KyvernoValidatingPolicy', 'require-team', 'require-team', 'fail'],
    ]);
    expect(report.summary).toMatchObject({ pass: 1, fail: 1 });
    expect(report.metadata.labels).toMatchObject({
      'cpol.kyverno.io/require-team': '7',
      'vpol.kyverno.io/require-team': '9',
    });
  });

  describe('adopting a report that names no resource uid (a mutating webhook at CREATE)', () => {
    const uidless = (ageMs: number, name = 'web') => {
      const admission = buildAdmissionReport(
        reportInputOf({
          requestUid: 'req-mutate',
          resource: { apiVersion: 'v1', kind: 'Pod', name, namespace: 'default', uid: '' },
        }),
      );
      admission.metadata.creationTimestamp = new Date(NOW - ageMs).toISOString();
      return admission;
    };

    it('writes the uid of the object found by kind, namespace and name, then merges it as any other', async () => {
      const { cluster, aggregator, report } = setup();
      const written = uidless(1_000);
      expect(written.metadata.labels['audit.kyverno.io/resource.uid']).toBe('');
      expect(written.metadata.ownerReferences).toBeUndefined();
      cluster.put(written as unknown as KubeObject);
      expect(await aggregator.adopt({ namespace: 'default', name: 'req-mutate' })).toEqual({
        report: 'adopted',
        uid: POD_UID,
      });
      const adopted = cluster.all('EphemeralReport')[0]!;
      expect(adopted.metadata?.labels?.['audit.kyverno.io/resource.uid']).toBe(POD_UID);
      expect(adopted.metadata?.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: POD_UID }]);
      expect((adopted as unknown as { spec: { owner: { uid: string } } }).spec.owner.uid).toBe(POD_UID);
      // Adopted once: a second look changes nothing.
      expect(await aggregator.adopt({ namespace: 'default', name: 'req-mutate' })).toEqual({ report: 'none' });
      expect((await aggregator.reconcile({ namespace: 'default', uid: POD_UID })).report).toBe('created');
      expect(report()?.results.map((r) => [r.rule, r.result])).toEqual([['check-team', 'fail']]);
    });

    it('waits for an object not stored yet within the grace period, and deletes the report after it', async () => {
      const { cluster, aggregator, admissionReports } = setup();
      cluster.put(uidless(1_000, 'not-yet') as unknown as KubeObject);
      expect(await aggregator.adopt({ namespace: 'default', name: 'req-mutate' })).toEqual({
        report: 'waiting',
        retryAfterMs: 500,
      });
      expect(admissionReports()).toEqual(['req-mutate']);
      cluster.put(uidless(GRACE * 2, 'not-yet') as unknown as KubeObject);
      expect(await aggregator.adopt({ namespace: 'default', name: 'req-mutate' })).toEqual({ report: 'deleted' });
      expect(admissionReports()).toEqual([]);
    });
  });
});
