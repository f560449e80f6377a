import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CleanupMetrics } from './cleanup-metrics';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: CleanupMetrics) {}

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('Content-Type', this.metrics.contentType);
    return this.metrics.text();
  }
}
