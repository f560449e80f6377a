/**
 * The engine the background controller evaluates rules with (@edict/context's ClusterEngine: clone
 * sources, mutate targets, ConfigMaps and Namespaces read live, this controller not being on an
 * admission's clock), with exceptions from its policy cache and the ConfigMap's size bounds.
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ClusterEngine } from '@edict/context';
import { KubeResources, CustomResourceDefinitions } from '@edict/kube';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';

@Injectable()
export class BackgroundEngine extends ClusterEngine implements OnModuleDestroy {
  constructor(
    @Inject(BACKGROUND_CONFIG) config: BackgroundConfig,
    resources: KubeResources,
    cache: PolicyCache,
    clusterConfig: AdmissionConfigService,
    customResources: CustomResourceDefinitions,
  ) {
    super(config, resources, {
      exceptions: () => cache.exceptions(),
      limits: () => clusterConfig.current().limits,
      evaluator: 'the background controller',
    });
    // The cache validates policies as the admission webhook did: with the custom kinds' scopes.
    customResources.feedClusterScopedKinds(cache);
  }

  /** The labels of a namespace for namespaceSelector (`{}` when it is gone; undefined without a namespace). */
  async namespaceLabels(namespace: string | undefined): Promise<Record<string, string> | undefined> {
    if (!namespace) return undefined;
    return ((await this.namespace(namespace))?.metadata?.labels as Record<string, string> | undefined) ?? {};
  }

  onModuleDestroy(): void {
    this.close();
  }
}
