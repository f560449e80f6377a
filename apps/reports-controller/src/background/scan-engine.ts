/**
 * The engine background scans evaluate with, as Kyverno's reports controller builds it
 * (@edict/context's ClusterEngine), with exceptions from the policy cache (PolicyExceptions apply in
 * background as at admission) and the ConfigMap's size bounds.
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ClusterEngine } from '@edict/context';
import { KubeResources, CustomResourceDefinitions } from '@edict/kube';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';

@Injectable()
export class ScanEngine extends ClusterEngine implements OnModuleDestroy {
  constructor(
    @Inject(REPORTS_CONFIG) config: ReportsConfig,
    resources: KubeResources,
    cache: PolicyCache,
    clusterConfig: AdmissionConfigService,
    customResources: CustomResourceDefinitions,
  ) {
    super(config, resources, {
      exceptions: () => cache.exceptions(),
      limits: () => clusterConfig.current().limits,
      evaluator: 'background scans',
    });
    // The cache validates policies as the admission webhook did: with the custom kinds' scopes.
    customResources.feedClusterScopedKinds(cache);
  }

  onModuleDestroy(): void {
    this.close();
  }
}
