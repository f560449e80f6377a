/** Terminus liveness and readiness, at Kyverno-style and Kubernetes-style paths. */
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { ReadinessIndicators } from './readiness.indicators';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessIndicators,
  ) {}

  /** Alive while the process serves HTTP: nothing external may make it restart. */
  @Get(['healthz', 'health/liveness'])
  @HealthCheck()
  liveness() {
    return this.health.check([() => this.indicators.check('process').up()]);
  }

  @Get(['readyz', 'health/readiness'])
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.readiness.lifecycleState(),
      () => this.readiness.certificate(),
      () => this.readiness.policies(),
      () => this.readiness.webhookTls(),
    ]);
  }
}
