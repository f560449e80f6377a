import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ReportsMetrics } from '@edict/reports';
import { AdmissionMetrics } from './admission-metrics';

@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: AdmissionMetrics,
    private readonly reports: ReportsMetrics,
  ) {}

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('Content-Type', this.metrics.contentType);
    // Same exposition format on both registries: the texts are concatenated.
    return `${await this.metrics.text()}\n${await this.reports.text()}`;
  }
}
