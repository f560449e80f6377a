/**
 * Writes one admission report idempotently. The name is the request uid, so a repeated write (a
 * retry after a lost answer, another replica, the fail and the ignore webhook for one request) meets
 * the existing report: it is merged (results by policy and rule) and written back under optimistic
 * concurrency, or left alone when nothing would change. Transient failures are retried.
 */
import { mergeAdmissionReports, sameReportContent } from '../report/admission-report';
import type { EphemeralReportObject } from '../report/types';
import { isTransientError, withRetry } from '@edict/kube';
import { type RetryOptions } from '@edict/work-queue';
import { ReportConflictError, ReportExistsError, type ReportStore } from './report-store';

export type WriteOutcome = 'created' | 'merged' | 'unchanged';

/** Merge attempts against concurrent writers before giving the round up (then retried as transient). */
const MERGE_ATTEMPTS = 5;

export class AdmissionReportWriter {
  constructor(
    private readonly store: ReportStore,
    private readonly retry: RetryOptions = {},
  ) {}

  write(report: EphemeralReportObject): Promise<WriteOutcome> {
    return withRetry(() => this.writeOnce(report), {
      ...this.retry,
      retryable: (error) => error instanceof ReportConflictError || (this.retry.retryable ?? isTransientError)(error),
    });
  }

  private async writeOnce(report: EphemeralReportObject): Promise<WriteOutcome> {
    // Create first: the common case (a new request) costs one call.
    if (await this.tryCreate(report)) return 'created';
    for (let attempt = 0; attempt < MERGE_ATTEMPTS; attempt += 1) {
      const existing = await this.store.get(report.kind, report.metadata.name, report.metadata.namespace);
      if (!existing) {
        if (await this.tryCreate(report)) return 'created';
        continue;
      }
      const merged = mergeAdmissionReports(existing, report);
      if (sameReportContent(existing, merged)) return 'unchanged';
      try {
        await this.store.replace(merged);
        return 'merged';
      } catch (error) {
        if (error instanceof ReportConflictError) continue;
        throw error;
      }
    }
    throw new ReportConflictError(`${report.kind} ${report.metadata.name} kept changing while merging`);
  }

  /** Creates; false when a report of that name exists. */
  private async tryCreate(report: EphemeralReportObject): Promise<boolean> {
    try {
      await this.store.create(report);
      return true;
    } catch (error) {
      if (error instanceof ReportExistsError) return false;
      throw error;
    }
  }
}
