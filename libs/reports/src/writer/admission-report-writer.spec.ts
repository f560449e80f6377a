import { describe, expect, it } from 'vitest';
import { KubeApiError } from '@edict/kube';
import { buildAdmissionReport } from '../report/admission-report';
import { FakeReportStore, reportInputOf } from '../testing';
import { AdmissionReportWriter } from './admission-report-writer';
import { ReportConflictError } from './report-store';

const fast = { sleep: async () => undefined };
const report = (overrides = {}) => buildAdmissionReport(reportInputOf(overrides));

describe('AdmissionReportWriter', () => {
  it('creates a new report with one call', async () => {
    const store = new FakeReportStore();
    expect(await new AdmissionReportWriter(store, fast).write(report())).toBe('created');
    expect(store.calls).toEqual(['create EphemeralReport/default/req-1']);
    expect(store.all()).toHaveLength(1);
  });

  it('is idempotent: writing the same report again changes nothing', async () => {
    const store = new FakeReportStore();
    const writer = new AdmissionReportWriter(store, fast);
    await writer.write(report());
    const version = store.all()[0]!.metadata.resourceVersion;
    expect(await writer.write(report())).toBe('unchanged');
    expect(store.all()).toHaveLength(1);
    expect(store.all()[0]!.metadata.resourceVersion).toBe(version);
  });

  it('merges a second write for the same request (another webhook, another replica)', async () => {
    const store = new FakeReportStore();
    const writer = new AdmissionReportWriter(store, fast);
    await writer.write(report());
    const other = report({
      results: [
        {
          source: 'kyverno',
          policy: 'other',
          rule: 'r',
          result: 'pass',
          scored: true,
          message: 'ok',
          timestamp: { seconds: 1, nanos: 0 },
        },
      ],
      policies: [{ kind: 'ClusterPolicy', name: 'other', resourceVersion: '1' }],
    });
    expect(await writer.write(other)).toBe('merged');
    const stored = store.all()[0]!;
    expect(stored.spec.results.map((r) => r.policy)).toEqual(['other', 'require-team']);
    expect(stored.spec.summary).toMatchObject({ pass: 1, fail: 1 });
  });

  it('retries a transient failure, and a lost answer ends as one report', async () => {
    const store = new FakeReportStore();
    // The create "fails" after the report was stored: the retry finds it and leaves it alone.
    const originalCreate = store.create.bind(store);
    let first = true;
    store.create = async (object) => {
      const created = await originalCreate(object);
      if (first) {
        first = false;
        throw new Error('socket hang up');
      }
      return created;
    };
    expect(await new AdmissionReportWriter(store, fast).write(report())).toBe('unchanged');
    expect(store.all()).toHaveLength(1);
  });

  it('retries through conflicts with concurrent writers', async () => {
    const store = new FakeReportStore();
    const writer = new AdmissionReportWriter(store, fast);
    await writer.write(report());
    const originalReplace = store.replace.bind(store);
    let conflicts = 2;
    store.replace = async (object) => {
      if (conflicts-- > 0) throw new ReportConflictError('changed');
      return originalReplace(object);
    };
    const other = report({ results: [{ ...reportInputOf().results[0]!, rule: 'second' }] });
    expect(await writer.write(other)).toBe('merged');
    expect(store.all()[0]!.spec.results).toHaveLength(2);
  });

  it('gives up on a clear refusal without retrying', async () => {
    const store = new FakeReportStore();
    store.failures.push(new KubeApiError(403, 'Forbidden', 'reports are forbidden'));
    await expect(new AdmissionReportWriter(store, fast).write(report())).rejects.toThrow('forbidden');
    expect(store.calls).toHaveLength(1);
  });
});
