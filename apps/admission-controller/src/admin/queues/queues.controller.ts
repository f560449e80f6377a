/** `GET /admin/queues`: how much work is waiting, and where. */
import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmissionReportQueue, REPORTS_OPTIONS, type ResolvedReportsOptions } from '@edict/reports';
import type { ControllerConfig } from '../../config/controller-config';
import { CONTROLLER_CONFIG } from '../../config/tokens';
import { AdmissionService } from '../../webhooks/admission.service';
import { ADMIN_QUEUE_PROBES, type QueueProbe } from './queue-probes';
import { AuditReportQueueDto, QueuesDto } from './queues.dto';

@ApiTags('admin')
@Controller('admin/queues')
export class QueuesController {
  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly admission: AdmissionService,
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
      others: this.probes.map((probe) => ({ name: probe.name, ...probe.depth() })),
    };
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
