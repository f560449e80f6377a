/**
 * Kyverno's `metricsRefreshInterval`: every interval, Kyverno drops its meter provider and builds a
 * new one, so every series starts over. Here every registry the controller serves is reset; gauges
 * read at scrape time (kyverno_info, kyverno_policy_rule_info_total) come back at the next scrape.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { CoreMetrics } from './core-metrics';
import { METRIC_REGISTRIES } from './metrics.controller';
import { MetricsConfiguration } from './metrics-configuration';

@Injectable()
export class MetricsRefresher implements OnModuleInit, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly configuration: MetricsConfiguration,
    private readonly core: CoreMetrics,
    @Inject(METRIC_REGISTRIES) private readonly registries: readonly Registry[],
  ) {}

  onModuleInit(): void {
    const interval = this.configuration.refreshIntervalMs;
    if (interval <= 0) return;
    this.timer = setInterval(() => this.refresh(), interval);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  refresh(): void {
    for (const registry of [this.core.registry, ...this.registries]) registry.resetMetrics();
    new Logger('Metrics').debug('metrics reset (metricsRefreshInterval)');
  }
}
