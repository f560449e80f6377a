/**
 * Terminus liveness and readiness at Kyverno-style and Kubernetes-style paths. Liveness is the
 * process serving HTTP (nothing external may make it restart); readiness is the controller's own
 * checks, given under READINESS_CHECKS.
 */
import { Controller, Get, Inject } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly readiness: readonly HealthIndicatorFunction[],
  ) {}

  @Get(['healthz', 'health/liveness'])
  @HealthCheck()
  liveness() {
    return this.health.check([() => this.indicators.check('process').up()]);
  }

  @Get(['readyz', 'health/readiness'])
  @HealthCheck()
  ready() {
    return this.health.check([...this.readiness]);
  }
}
