/**
 * Against a real in-memory API server: reports land with Kyverno's shape, a repeated write is a
 * no-op, and the counter that drives the cap follows the reports that exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Test, type TestingModule } from '@nestjs/testing';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { KubeModule, KubeResources } from '@edict/kube';
import { eventually } from '@edict/kube/testing';
import { installPolicyCrds } from '@edict/policy/testing';
import { AdmissionReportQueue } from './admission-report-queue';
import { InformerReportCounter } from './cap/report-counter';
import { REPORT_COUNTER } from './reports.constants';
import { ReportsModule } from './reports.module';
import type { JsonObject } from '@edict/foundation';
import { buildAdmissionReport } from './report/admission-report';
import { reportInputOf } from './testing';
import type { EphemeralReportObject } from './report/types';

describe('ReportsModule against the in-memory API server', () => {
  let server: InMemoryApiServer;
  let ref: TestingModule;
  let queue: AdmissionReportQueue;
  let counter: InformerReportCounter;

  beforeAll(async () => {
    server = new InMemoryApiServer({ bookmarkIntervalMs: 100 });
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    installPolicyCrds(server);
    ref = await Test.createTestingModule({
      imports: [
        KubeModule.forRoot({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) }),
        ReportsModule.forRootAsync({
          inject: [KubeResources],
          useFactory: (resources: KubeResources) => ({
            options: { maxAdmissionReports: 2, watchTimeoutSeconds: 5, retryInitialDelayMs: 10 },
            resources,
          }),
        }),
      ],
    }).compile();
    await ref.init();
    queue = ref.get(AdmissionReportQueue);
    counter = ref.get(REPORT_COUNTER);
    await counter.waitForSync(5_000);
  });

  afterAll(async () => {
    await ref?.close();
    await server?.stop();
  });

  it('writes an EphemeralReport in the resource namespace and a ClusterEphemeralReport for cluster resources', async () => {
    queue.submit(reportInputOf({ requestUid: 'r-ns' }));
    queue.submit(
      reportInputOf({
        requestUid: 'r-cluster',
        gvr: { group: '', version: 'v1', resource: 'namespaces' },
        resource: { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: 'ns-uid' },
      }),
    );
    await queue.whenIdle();
    const namespaced = server.get(
      'reports.kyverno.io/v1',
      'EphemeralReport',
      'r-ns',
      'default',
    ) as unknown as EphemeralReportObject;
    expect(namespaced.metadata.labels['audit.kyverno.io/resource.uid']).toBe('pod-uid-1');
    expect(namespaced.spec.summary.fail).toBe(1);
    expect(server.get('reports.kyverno.io/v1', 'ClusterEphemeralReport', 'r-cluster')).toBeDefined();
    await eventually(() => counter.current().count === 2, 'the counter to see both reports');
  });

  it('counts admission reports only, not background scan ones', async () => {
    const background = buildAdmissionReport(reportInputOf({ requestUid: 'scan-1' }));
    background.metadata.labels['audit.kyverno.io/source'] = 'background-scan';
    server.create(background as unknown as JsonObject);
    // Written after the background one: once the counter sees it, it has had its chance to count both.
    server.create(buildAdmissionReport(reportInputOf({ requestUid: 'probe' })) as unknown as JsonObject);
    await eventually(() => counter.current().count >= 3, 'the counter to see the probe');
    expect(counter.current().count).toBe(3);
    server.delete('reports.kyverno.io/v1', 'EphemeralReport', 'scan-1', 'default');
    server.delete('reports.kyverno.io/v1', 'EphemeralReport', 'probe', 'default');
    await eventually(() => counter.current().count === 2, 'the probe gone');
  });

  it('a repeated write leaves the stored report as it is', async () => {
    const before = server.get(
      'reports.kyverno.io/v1',
      'EphemeralReport',
      'r-ns',
      'default',
    ) as unknown as EphemeralReportObject;
    queue.submit(reportInputOf({ requestUid: 'r-ns' }));
    await queue.whenIdle();
    const after = server.get(
      'reports.kyverno.io/v1',
      'EphemeralReport',
      'r-ns',
      'default',
    ) as unknown as EphemeralReportObject;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('stops creating reports once more than the cap exist', async () => {
    queue.submit(reportInputOf({ requestUid: 'r-3' })); // 2 exist: not over the cap yet
    await queue.whenIdle();
    await eventually(() => counter.current().count === 3, 'three reports counted');
    queue.submit(reportInputOf({ requestUid: 'r-4' }));
    await queue.whenIdle();
    expect(server.get('reports.kyverno.io/v1', 'EphemeralReport', 'r-4', 'default')).toBeUndefined();
    server.delete('reports.kyverno.io/v1', 'EphemeralReport', 'r-3', 'default');
    server.delete('reports.kyverno.io/v1', 'EphemeralReport', 'r-ns', 'default');
    await eventually(() => counter.current().count === 1, 'the counter to follow deletions');
    queue.submit(reportInputOf({ requestUid: 'r-5' }));
    await queue.whenIdle();
    expect(server.get('reports.kyverno.io/v1', 'EphemeralReport', 'r-5', 'default')).toBeDefined();
  });
});
