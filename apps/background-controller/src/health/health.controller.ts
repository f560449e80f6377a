/**
 * Terminus liveness and readiness. Ready once the policy cache and the ConfigMap are synced; a
 * replica that does not lead is ready too (it stands by to take over).
 */
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly cache: PolicyCache,
    private readonly config: AdmissionConfigService,
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
        if (!this.config.hasSynced())
          return check.down({ message: 'the configuration ConfigMap has not been read yet' });
        return check.up({ policies: this.cache.stats().policies });
      },
    ]);
  }
}
