/**
 * `/metrics`: the controller's core metrics and its prom-client registries (given under
 * METRIC_REGISTRIES), one exposition text, with the `kyverno-metrics` ConfigMap's exposure applied.
 */
import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { CoreMetrics } from './core-metrics';
import { MetricsConfiguration } from './metrics-configuration';
import { renderMetrics } from './metrics-exposition';

export const METRIC_REGISTRIES = Symbol('METRIC_REGISTRIES');

@Controller()
export class MetricsController {
  constructor(
    @Inject(METRIC_REGISTRIES) private readonly registries: readonly Registry[],
    private readonly core: CoreMetrics,
    private readonly configuration: MetricsConfiguration,
  ) {}

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('Content-Type', this.contentType);
    return this.text();
  }

  get contentType(): string {
    return this.core.registry.contentType;
  }

  /** The exposition text (also served on the metrics port). */
  text(): Promise<string> {
    return renderMetrics([this.core.registry, ...this.registries], this.configuration);
  }
}
