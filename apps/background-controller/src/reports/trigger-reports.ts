/**
 * Writes the report of each rule the background controller applies (see triggerReport), when
 * `enableReporting` names its rule type (Kyverno's `--enableReporting`), through the reports
 * library's idempotent writer: the name comes from the trigger and the UpdateRequest, so another
 * leader processing the same request, or a retry, merges into the same report. As in Kyverno, a
 * report that cannot be written is logged and the request goes on.
 */
import { Logger } from '@nestjs/common';
import type { AdmissionReportWriter, ReportingRuleType } from '@edict/reports';
import { triggerReport, type AppliedRule } from './trigger-report';

export class TriggerReports {
  private readonly logger = new Logger('TriggerReports');

  constructor(
    private readonly writer: Pick<AdmissionReportWriter, 'write'>,
    private readonly enabled: readonly ReportingRuleType[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  async write(requestKey: string, applied: AppliedRule): Promise<void> {
    if (!this.enabled.includes(applied.type)) return;
    const report = triggerReport(applied, requestKey, this.now());
    if (!report) return;
    try {
      await this.writer.write(report);
    } catch (error) {
      this.logger.warn(
        `report ${report.metadata.name} about ${applied.request.resource?.kind} not written: ${(error as Error).message}`,
      );
    }
  }
}
