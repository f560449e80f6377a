/** The module with fakes: registration checks, and a submitted report reaching the store. */
import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { AdmissionReportQueue } from './admission-report-queue';
import { ReportsMetrics } from './metrics/reports-metrics';
import { ReportsModule } from './reports.module';
import { FakeReportCounter, FakeReportStore, reportInputOf } from './testing';

async function moduleWith(counter = new FakeReportCounter(), options = {}) {
  const store = new FakeReportStore();
  const ref = await Test.createTestingModule({
    imports: [ReportsModule.forRoot({ options: { queueSize: 2, workers: 1, ...options }, store, counter })],
  }).compile();
  await ref.init();
  return { ref, store, queue: ref.get(AdmissionReportQueue), metrics: ref.get(ReportsMetrics) };
}

describe('ReportsModule', () => {
  it('refuses bad options at registration, naming the field', () => {
    expect(() =>
      ReportsModule.forRoot({
        options: { queueSize: -1 },
        store: new FakeReportStore(),
        counter: new FakeReportCounter(),
      }),
    ).toThrow(/queueSize/);
    expect(() =>
      ReportsModule.forRoot({
        options: { bogus: 1 } as never,
        store: new FakeReportStore(),
        counter: new FakeReportCounter(),
      }),
    ).toThrow(/bogus/);
    expect(() => ReportsModule.forRoot({ store: new FakeReportStore() })).toThrow(/resources: required/);
  });

  it('writes a submitted report and counts the write', async () => {
    const { ref, store, queue, metrics } = await moduleWith();
    expect(queue.submit(reportInputOf())).toBe(true);
    await queue.whenIdle();
    expect(store.all().map((r) => r.metadata.name)).toEqual(['req-1']);
    expect(await metrics.text()).toContain('edict_admission_report_writes_total{outcome="created"} 1');
    await ref.close();
  });

  it('drops reports over the cap and counts them under Kyverno breaker names', async () => {
    const { ref, store, queue, metrics } = await moduleWith(new FakeReportCounter({ count: 6, running: true }), {
      maxAdmissionReports: 5,
    });
    queue.submit(reportInputOf());
    await queue.whenIdle();
    expect(store.all()).toHaveLength(0);
    const text = await metrics.text();
    expect(text).toContain('kyverno_breaker_total{circuit_name="admission reports"} 1');
    expect(text).toContain('kyverno_breaker_drops_total{circuit_name="admission reports"} 1');
    await ref.close();
  });

  it('drops when the queue is full and shows depth and drops', async () => {
    // No window: the first report goes to the writer at once, two more wait, the fourth is dropped.
    const { ref, store, queue, metrics } = await moduleWith(undefined, { coalesceWindowMs: 0 });
    const gate: Array<() => void> = [];
    const create = store.create.bind(store);
    store.create = (report) => new Promise((resolve) => gate.push(() => resolve(create(report))));
    const pod = (uid: string) => ({ apiVersion: 'v1', kind: 'Pod', name: uid, namespace: 'default', uid });
    const accepted = ['a', 'b', 'c', 'd'].map((uid) =>
      queue.submit(reportInputOf({ requestUid: uid, resource: pod(`pod-${uid}`) })),
    );
    expect(accepted).toEqual([true, true, true, false]);
    const text = await metrics.text();
    expect(text).toContain('edict_admission_report_queue_depth 2');
    expect(text).toContain('edict_admission_report_queue_dropped_total{reason="full"} 1');
    while (!queue.stats().active && gate.length === 0) await new Promise((r) => setTimeout(r, 1));
    const release = setInterval(() => gate.splice(0).forEach((go) => go()), 1);
    expect(await queue.drain(2_000)).toBe(true);
    clearInterval(release);
    expect(store.all()).toHaveLength(3);
    expect(queue.submit(reportInputOf({ requestUid: 'late' }))).toBe(false);
    await ref.close();
  });

  it('writes reports about the same resource that wait together once, the later result per rule winning', async () => {
    const { ref, store, queue, metrics } = await moduleWith();
    const row = reportInputOf().results[0]!;
    queue.submit(reportInputOf({ requestUid: 'req-1', results: [{ ...row, rule: 'r1', result: 'fail' }] }));
    queue.submit(
      reportInputOf({
        requestUid: 'req-2',
        results: [
          { ...row, rule: 'r1', result: 'pass' },
          { ...row, rule: 'r2', result: 'pass' },
        ],
      }),
    );
    queue.submit(reportInputOf({ requestUid: 'req-3', resource: { ...reportInputOf().resource, uid: 'other-pod' } }));
    await queue.whenIdle();
    expect(store.calls).toEqual(['create EphemeralReport/default/req-1', 'create EphemeralReport/default/req-3']);
    const merged = store.reports.get('EphemeralReport/default/req-1')!;
    expect(merged.spec.results.map((r) => `${r.rule}=${r.result}`)).toEqual(['r1=pass', 'r2=pass']);
    expect(await metrics.text()).toContain('edict_admission_reports_coalesced_total 1');
    await ref.close();
  });

  it('writes what waits in the coalescing window when drained', async () => {
    const { ref, store, queue } = await moduleWith(undefined, { coalesceWindowMs: 10_000 });
    queue.submit(reportInputOf());
    expect(await queue.drain(2_000)).toBe(true);
    expect(store.all().map((r) => r.metadata.name)).toEqual(['req-1']);
    await ref.close();
  });

  it('ignores an input without results', async () => {
    const { ref, store, queue } = await moduleWith();
    expect(queue.submit(reportInputOf({ results: [] }))).toBe(true);
    await queue.whenIdle();
    expect(store.all()).toHaveLength(0);
    await ref.close();
  });
});
