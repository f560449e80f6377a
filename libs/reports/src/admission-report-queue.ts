/**
 * The admission report queue: the webhook hands each admitted request's results over with
 * `submit` (never blocks: a full queue drops and counts), workers build the report, check the cap
 * and write it idempotently. Reports about the same resource (its uid) that wait together are
 * written as one (the later result per rule wins): a new one waits `coalesceWindowMs` first, so the
 * fail and ignore webhooks' results for one request, or quick successive changes to one object,
 * cost one write. Shutdown drains it (window included) after the last reviews have finished.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ReportBreaker } from './cap/report-breaker';
import { ADMISSION_REPORTS_CIRCUIT, ReportsMetrics } from './metrics/reports-metrics';
import { CoalescingWorkQueue, type CoalescingWorkQueueStats } from '@edict/work-queue';
import { buildAdmissionReport, mergeAdmissionReportInputs, type AdmissionReportInput } from './report/admission-report';
import { REPORTS_OPTIONS } from './reports.constants';
import type { ResolvedReportsOptions } from './reports.options';
import { AdmissionReportWriter } from './writer/admission-report-writer';

@Injectable()
export class AdmissionReportQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('AdmissionReports');
  private readonly queue: CoalescingWorkQueue<AdmissionReportInput>;

  constructor(
    @Inject(REPORTS_OPTIONS) options: ResolvedReportsOptions,
    private readonly writer: AdmissionReportWriter,
    private readonly breaker: ReportBreaker,
    private readonly metrics: ReportsMetrics,
  ) {
    this.queue = new CoalescingWorkQueue<AdmissionReportInput>({
      capacity: options.queueSize,
      workers: options.workers,
      windowMs: options.coalesceWindowMs,
      // A report without the resource's uid (a mutating webhook's CREATE) waits on its own.
      keyOf: (input) => input.resource.uid || `request/${input.requestUid}`,
      merge: mergeAdmissionReportInputs,
      onCoalesce: () => this.metrics.coalesced.inc(),
      handler: (input) => this.write(input),
      onError: (error, input) => {
        this.metrics.writes.inc({ outcome: 'failed' });
        this.logger.warn(`admission report ${input.requestUid} not written: ${(error as Error).message}`);
      },
      onDrop: (_input, reason) => this.metrics.queueDropped.inc({ reason }),
    });
    this.metrics.trackDepth(() => this.queue.depth);
  }

  /** Queues one request's report; false when it was dropped (queue full or shutting down). */
  submit(input: AdmissionReportInput): boolean {
    if (input.results.length === 0) return true;
    return this.queue.offer(input);
  }

  stats(): CoalescingWorkQueueStats {
    return this.queue.stats();
  }

  /** Ends the coalescing window and resolves once nothing is queued or being written (tests, flush points). */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /**
   * Stops accepting and writes what is queued, the coalescing window at once, for at most
   * `timeoutMs`; true when all were written.
   */
  drain(timeoutMs: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }

  async onApplicationShutdown(): Promise<void> {
    // The app drains explicitly before closing; this only makes late submissions drop.
    await this.queue.drain(0);
  }

  private async write(input: AdmissionReportInput): Promise<void> {
    if (!this.breaker.allow()) return;
    const outcome = await this.writer.write(buildAdmissionReport(input));
    this.metrics.writes.inc({ outcome });
  }
}

/** Breaker metrics under Kyverno's names for the admission reports circuit. */
export function breakerMetricsOf(metrics: ReportsMetrics) {
  const labels = { circuit_name: ADMISSION_REPORTS_CIRCUIT };
  return {
    onInvoke: () => metrics.breakerTotal.inc(labels),
    onDrop: () => metrics.breakerDrops.inc(labels),
  };
}
