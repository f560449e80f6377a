/**
 * After the answer, end to end through the in-memory API server's admission chain and the webhook
 * configurations the controller publishes: an Audit policy's result reaches an admission EphemeralReport,
 * a generate trigger becomes an UpdateRequest (with the user's roles) unless updateRequestThreshold
 * is reached, violations become Events (blocked ones too), and the report cap stops new reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '@edict/kube/testing';
import { REPORT_COUNTER, ReportsMetrics, type ReportCounter } from '@edict/reports';
import type { JsonObject } from '@edict/foundation';
import { AdmissionConfigService } from '@edict/policy';
import { AfterAdmissionService } from './after-admission/after-admission.service';
import type { RunningController } from './bootstrap';
import { AdmissionMetrics } from './metrics/admission-metrics';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  clusterPolicy,
  E2E_NAMESPACE,
  requireLabelPolicy,
  testPod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('after admission: reports, update requests, events', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  let core: CoreV1Api;
  const after = () => controller.app.get(AfterAdmissionService);
  const settle = () => after().whenIdle();
  const reports = (namespace = 'default') =>
    cluster.apiServer.list('reports.kyverno.io/v1', 'EphemeralReport', namespace) as Obj[];
  const events = (namespace = 'default') => cluster.apiServer.list('events.k8s.io/v1', 'Event', namespace) as Obj[];

  beforeAll(async () => {
    cluster = await startE2eCluster();
    // Every user of the in-memory API server (kubernetes-admin) is in kubeadm:cluster-admins.
    cluster.apiServer.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm-admins' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: 'kubeadm:cluster-admins' }],
    } as unknown as JsonObject);
    // The cap: no new report while more than 2 exist.
    controller = await cluster.startReplica({ maxAdmissionReports: 2, omitEvents: [] });
    core = cluster.core;
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("an Audit policy admits a Pod and its result reaches an admission EphemeralReport in Kyverno's shape", async () => {
    await cluster.createClusterPolicy(requireLabelPolicy('Audit', 'audit-team', 'team'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    // The report names the policy's resourceVersion at admission: let the status writer finish first.
    await eventually(() => {
      const policy = cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'audit-team') as Obj;
      return policy.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True') ?? false;
    }, 'the policy Ready');
    const created = await core.createNamespacedPod({ namespace: 'default', body: testPod('audited') });
    const uid = created.metadata!.uid!;
    await settle();
    await eventually(
      () => reports().some((r) => r.metadata.labels['audit.kyverno.io/resource.uid'] === uid),
      'the report',
    );
    const report = reports().find((r) => r.metadata.labels['audit.kyverno.io/resource.uid'] === uid)!;
    const policy = cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'audit-team') as Obj;
    expect(report.kind).toBe('EphemeralReport');
    expect(report.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'kyverno',
      'audit.kyverno.io/resource.gvr': 'pods.v1',
      'cpol.kyverno.io/audit-team': policy.metadata.resourceVersion,
    });
    expect(report.metadata.labels['audit.kyverno.io/resource.hash']).toMatch(/^[0-9a-f]{32}$/);
    expect(report.metadata.ownerReferences).toBeUndefined(); // CREATE: the Pod did not exist yet
    expect(report.spec.owner).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'audited', uid });
    expect(report.spec.summary).toEqual({ pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
    expect(report.spec.results).toEqual([
      expect.objectContaining({
        source: 'kyverno',
        policy: 'audit-team',
        rule: 'check-team',
        result: 'fail',
        scored: true,
        message: expect.stringContaining("label 'team' is required"),
        timestamp: { seconds: expect.any(Number), nanos: 0 },
      }),
    ]);
  });

  it('an audit violation is an Event on the Pod and on the policy', async () => {
    await eventually(
      () => events().some((e) => e.regarding?.kind === 'Pod' && e.regarding?.name === 'audited'),
      'an event on the Pod',
    );
    const onPod = events().find((e) => e.regarding?.kind === 'Pod' && e.regarding?.name === 'audited')!;
    expect(onPod).toMatchObject({
      type: 'Warning',
      reason: 'PolicyViolation',
      action: 'Resource Passed',
      reportingController: 'kyverno-admission',
      note: expect.stringMatching(/^policy audit-team\/check-team fail: /),
    });
    const onPolicy = events().find((e) => e.regarding?.kind === 'ClusterPolicy' && e.related?.name === 'audited')!;
    expect(onPolicy).toMatchObject({
      reason: 'PolicyViolation',
      action: 'Resource Passed',
      note: expect.stringMatching(/^Pod default\/audited: \[check-team\] fail; /),
    });
    await cluster.deleteClusterPolicy('audit-team');
  });

  it('a blocked request still leaves a PolicyViolation Event on the policy', async () => {
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'enforce-owner', 'owner'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    await expect(core.createNamespacedPod({ namespace: 'default', body: testPod('refused') })).rejects.toBeTruthy();
    await settle();
    await eventually(
      () => events().some((e) => e.regarding?.name === 'enforce-owner' && e.related?.name === 'refused'),
      'the blocked event',
    );
    const event = events().find((e) => e.regarding?.name === 'enforce-owner')!;
    expect(event).toMatchObject({
      type: 'Warning',
      reason: 'PolicyViolation',
      action: 'Resource Blocked',
      regarding: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'enforce-owner' },
      related: { apiVersion: 'v1', kind: 'Pod', name: 'refused', namespace: 'default' },
      note: expect.stringMatching(/^Pod default\/refused: \[check-owner\] fail \(blocked\); /),
    });
    // No event is about the refused Pod itself (it does not exist).
    expect(events().some((e) => e.regarding?.kind === 'Pod' && e.regarding?.name === 'refused')).toBe(false);
    await cluster.deleteClusterPolicy('enforce-owner');
  });

  it("a generate policy's trigger creates an UpdateRequest with Kyverno's labels and the user's roles", async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('copy-config', {
        rules: [
          {
            name: 'copy',
            match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['trigger-*'] } }] },
            generate: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'generated',
              namespace: '{{request.object.metadata.namespace}}',
              data: { data: { copied: 'yes' } },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    const trigger = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'trigger-1' }, data: { a: 'b' } },
    });
    await settle();
    const urs = () =>
      (cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', E2E_NAMESPACE) as Obj[]).filter(
        (ur) => ur.spec.resource?.name === 'trigger-1',
      );
    await eventually(() => urs().length === 1 && urs()[0]!.status?.state === 'Pending', 'the UpdateRequest');
    const ur = urs()[0]!;
    expect(ur.metadata.name).toMatch(/^ur-/);
    expect(ur.metadata.labels['generate.kyverno.io/policy-name']).toBe('copy-config');
    expect(ur.spec).toMatchObject({
      requestType: 'generate',
      policy: 'copy-config',
      rule: 'copy',
      resource: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'trigger-1',
        namespace: 'default',
        uid: trigger.metadata!.uid,
      },
      context: {
        userInfo: { clusterRoles: ['cluster-admin'], userInfo: { username: 'kubernetes-admin' } },
        admissionRequestInfo: { operation: 'CREATE' },
      },
    });
    await cluster.deleteClusterPolicy('copy-config');
  });

  it('no new UpdateRequest at updateRequestThreshold: skipped, counted, and the count is kyverno_updaterequest_total', async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('copy-config-again', {
        rules: [
          {
            name: 'copy',
            match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['pressed-*'] } }] },
            generate: { apiVersion: 'v1', kind: 'ConfigMap', name: 'generated', namespace: 'default', data: {} },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    // No background controller here: the earlier test's UpdateRequest stays, so one exists.
    const existing = () => cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', E2E_NAMESPACE).length;
    expect(existing()).toBe(1);
    await core.createNamespacedConfigMap({
      namespace: E2E_NAMESPACE,
      body: { metadata: { name: 'edict' }, data: { updateRequestThreshold: '1' } },
    });
    const config = controller.app.get(AdmissionConfigService);
    await eventually(() => config.current().updateRequestThreshold === 1, 'the threshold applied');
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'pressed-1' } } });
    await settle();
    expect(existing()).toBe(1);
    expect(after().figures().updateRequests.skipped).toBe(1);
    const text = await controller.app.get(AdmissionMetrics).text();
    expect(text).toContain(`kyverno_updaterequest_total{resource_namespace="${E2E_NAMESPACE}"} 1`);
    expect(await controller.app.get(ReportsMetrics).text()).toMatch(/^edict_update_requests_skipped 1$/m);
    await core.deleteNamespacedConfigMap({ namespace: E2E_NAMESPACE, name: 'edict' });
    await eventually(() => config.current().updateRequestThreshold === 1000, 'the default threshold back');
    await cluster.deleteClusterPolicy('copy-config-again');
  });

  it('the cap stops report creation once more than maxAdmissionReports exist, and counts it', async () => {
    await cluster.createClusterPolicy(requireLabelPolicy('Audit', 'audit-app', 'app'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    const count = () =>
      cluster.apiServer.list('reports.kyverno.io/v1', 'EphemeralReport').length +
      cluster.apiServer.list('reports.kyverno.io/v1', 'ClusterEphemeralReport').length;
    // Fill up to over the cap (2): each Pod gets a report while the count is at most 2.
    for (let i = 0; count() <= 2 && i < 5; i += 1) {
      await core.createNamespacedPod({ namespace: 'default', body: testPod(`filler-${i}`) });
      await settle();
      const expected = count();
      await eventually(() => count() === expected, 'the report count to settle');
    }
    expect(count()).toBe(3);
    const metrics = controller.app.get(ReportsMetrics);
    // Let the report counter's watch see the third report before the next request.
    const counter = controller.app.get<ReportCounter>(REPORT_COUNTER);
    await eventually(() => counter.current().count === 3, 'the counter to see three reports');
    const created = await core.createNamespacedPod({ namespace: 'default', body: testPod('over-the-cap') });
    await settle();
    expect(reports().some((r) => r.metadata.labels['audit.kyverno.io/resource.uid'] === created.metadata!.uid)).toBe(
      false,
    );
    expect(count()).toBe(3);
    expect(await metrics.text()).toMatch(/kyverno_breaker_drops_total\{circuit_name="admission reports"\} [1-9]/);
  });

  it('a shutdown drain waits for reports and UpdateRequests, not for rate-limited events', async () => {
    // More events than the recorder writes in a few seconds (10/s after a burst of 25).
    for (let i = 0; i < 100; i += 1)
      after().events.record({
        regarding: { kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: `noisy-${i}` },
        type: 'Warning',
        reason: 'PolicyViolation',
        action: 'Resource Passed',
        note: `event ${i}`,
      });
    expect(await after().drain(30_000)).toBe(true);
    expect(after().events.stats().pending).toBeGreaterThan(0);
  });
});
