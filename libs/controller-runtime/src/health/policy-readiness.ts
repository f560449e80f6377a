/** Ready once the policy cache has synced and, where the controller reads it, the configuration ConfigMap. */
import { Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';

@Injectable()
export class PolicyReadiness {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly cache: PolicyCache,
    @Optional() private readonly config?: AdmissionConfigService,
  ) {}

  check() {
    const check = this.indicators.check('policies');
    if (!this.cache.hasSynced()) return check.down({ message: 'the policy cache has not synced yet' });
    if (this.config && !this.config.hasSynced())
      return check.down({ message: 'the configuration ConfigMap has not been read yet' });
    const stats = this.cache.stats();
    return check.up({ policies: stats.policies, invalidPolicies: stats.invalidPolicies });
  }
}
