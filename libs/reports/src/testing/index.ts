/** Test helpers: an in-memory report store with fault injection, a settable counter, inputs. */
import type { ReportResult } from '@edict/admission';
import type { AdmissionReportInput } from '../report/admission-report';
import type { EphemeralReportObject } from '../report/types';
import type { ReportCount, ReportCounter } from '../cap/report-counter';
import { ReportConflictError, ReportExistsError, type ReportStore } from '../writer/report-store';

/** A ReportStore in memory: resourceVersions, 409s like the API server, and scripted failures. */
export class FakeReportStore implements ReportStore {
  readonly reports = new Map<string, EphemeralReportObject>();
  readonly calls: string[] = [];
  /** Errors thrown by the next calls, in order (then calls succeed). */
  readonly failures: unknown[] = [];
  private version = 0;

  async create(report: EphemeralReportObject): Promise<void> {
    this.calls.push(`create ${keyOf(report)}`);
    this.failNext();
    if (this.reports.has(keyOf(report))) throw new ReportExistsError(`${keyOf(report)} exists`);
    this.reports.set(keyOf(report), this.stamp(structuredClone(report)));
  }

  async get(kind: EphemeralReportObject['kind'], name: string, namespace?: string) {
    this.calls.push(`get ${kind}/${namespace ?? ''}/${name}`);
    this.failNext();
    const found = this.reports.get(`${kind}/${namespace ?? ''}/${name}`);
    return found ? structuredClone(found) : undefined;
  }

  async replace(report: EphemeralReportObject): Promise<EphemeralReportObject> {
    this.calls.push(`replace ${keyOf(report)}`);
    this.failNext();
    const existing = this.reports.get(keyOf(report));
    if (!existing || existing.metadata.resourceVersion !== report.metadata.resourceVersion)
      throw new ReportConflictError(`${keyOf(report)} changed`);
    const stored = this.stamp(structuredClone(report));
    this.reports.set(keyOf(report), stored);
    return structuredClone(stored);
  }

  all(): EphemeralReportObject[] {
    return [...this.reports.values()];
  }

  private stamp(report: EphemeralReportObject): EphemeralReportObject {
    this.version += 1;
    report.metadata.resourceVersion = String(this.version);
    return report;
  }

  private failNext(): void {
    if (this.failures.length > 0) throw this.failures.shift();
  }
}

function keyOf(report: EphemeralReportObject): string {
  return `${report.kind}/${report.metadata.namespace ?? ''}/${report.metadata.name}`;
}

/** A ReportCounter whose count a test sets. */
export class FakeReportCounter implements ReportCounter {
  constructor(public value: ReportCount = { count: 0, running: true }) {}
  current(): ReportCount {
    return this.value;
  }
}

/** A ReportResult like the admission library produces, for a Pod `default/<name>`. */
export function reportResultOf(overrides: Partial<ReportResult> = {}): ReportResult {
  return {
    policy: 'require-team',
    rule: 'check-team',
    result: 'fail',
    message: "validation error: label 'team' is required",
    resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'pod-uid-1' },
    scored: true,
    timestamp: { seconds: 1_700_000_000, nanos: 0 },
    source: 'kyverno',
    type: 'Validation',
    ...overrides,
  };
}

/** A report input for a Pod `default/web` with one failing result. */
export function reportInputOf(overrides: Partial<AdmissionReportInput> = {}): AdmissionReportInput {
  return {
    requestUid: 'req-1',
    operation: 'CREATE',
    gvr: { group: '', version: 'v1', resource: 'pods' },
    resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'pod-uid-1' },
    resourceHash: 'hash',
    policies: [{ kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '7' }],
    results: [
      {
        source: 'kyverno',
        policy: 'require-team',
        rule: 'check-team',
        result: 'fail',
        scored: true,
        message: "validation error: label 'team' is required",
        timestamp: { seconds: 1_700_000_000, nanos: 0 },
      },
    ],
    ...overrides,
  };
}
