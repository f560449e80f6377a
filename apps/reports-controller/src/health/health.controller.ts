/**
 * Terminus liveness and readiness. Ready once the policy cache is synced; a replica that does not
 * lead is ready too (it stands by to take over).
 */
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { PolicyCache } from '@edict/policy';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly cache: PolicyCache,
  ) {}

  @Get(['healthz', 'health/liveness'])
  @HealthCheck()
  liveness() {
    return this.health.check([() => this.indicators.check('process').up()]);
  }

  @Get(['readyz', 'health/readiness'])
  @HealthCheck()
  ready() {
    return this.health.check([
      () => {
        const check = this.indicators.check('policies');
        if (!this.cache.hasSynced()) return check.down({ message: 'the policy cache has not synced yet' });
        return check.up({ policies: this.cache.stats().policies });
      },
    ]);
  }
}
