/** `GET /admin/queues`: how much work is waiting, and where. */
import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmissionReportQueue, REPORTS_OPTIONS, type ResolvedReportsOptions } from '@edict/reports';
import { AfterAdmissionService } from '../../after-admission/after-admission.service';
import type { ControllerConfig } from '../../config/controller-config';
import { CONTROLLER_CONFIG } from '../../config/tokens';
import { AdmissionService } from '../../webhooks/admission.service';
import { ADMIN_QUEUE_PROBES, type QueueProbe } from './queue-probes';
import { AuditReportQueueDto, QueueDepthDto, QueuesDto } from './queues.dto';

@ApiTags('admin')
@Controller('admin/queues')
export class QueuesController {
  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly admission: AdmissionService,
    private readonly after: AfterAdmissionService,
    // Present once the app imports ReportsModule; until then the endpoint says it is not wired.
    @Optional() private readonly reports?: AdmissionReportQueue,
    @Optional() @Inject(REPORTS_OPTIONS) private readonly reportOptions?: ResolvedReportsOptions,
    @Optional() @Inject(ADMIN_QUEUE_PROBES) private readonly probes: readonly QueueProbe[] = [],
  ) {}

  @Get()
  @ApiOperation({ summary: 'Depths of the review limiter, the audit report queue and any registered queue' })
  @ApiOkResponse({ type: QueuesDto })
  depths(): QueuesDto {
    const limiter = this.admission.limiter;
    return {
      reviews: {
        inFlight: limiter.inFlight(),
        queued: limiter.queued(),
        maxInFlight: this.settings.maxInFlight,
        maxQueued: this.settings.maxQueued,
      },
      auditReports: this.auditReports(),
      others: [...this.afterAdmission(), ...this.probes.map((probe) => ({ name: probe.name, ...probe.depth() }))],
    };
  }

  /** The work an admitted review leaves behind: audits, UpdateRequests, events (waiting and in progress). */
  private afterAdmission(): QueueDepthDto[] {
    const { auditQueue, updateRequests, events } = this.after.figures();
    return [
      { name: 'after-admission', ...auditQueue, capacity: this.settings.auditQueueSize },
      { name: 'update-requests', depth: updateRequests.depth, dropped: updateRequests.dropped },
      { name: 'events', depth: events.pending, dropped: events.dropped, capacity: this.settings.maxQueuedEvents },
    ];
  }

  private auditReports(): AuditReportQueueDto {
    if (!this.reports) return { wired: false };
    const stats = this.reports.stats();
    return {
      wired: true,
      ...stats,
      ...(this.reportOptions ? { capacity: this.reportOptions.queueSize, workers: this.reportOptions.workers } : {}),
    };
  }
}
