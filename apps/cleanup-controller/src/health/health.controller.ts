/**
 * Terminus liveness and readiness. The controller serves no requests and keeps no cache others
 * wait for, so it is ready once it runs; a replica that does not lead stands by to take over.
 */
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  @Get(['healthz', 'health/liveness', 'readyz', 'health/readiness'])
  @HealthCheck()
  check() {
    return this.health.check([() => this.indicators.check('process').up()]);
  }
}
