/** The admission metrics, labelled only with the kinds and namespaces the controller knows. */
import { Module, type FactoryProvider, type OnModuleDestroy } from '@nestjs/common';
import { CelPolicyCache, PolicyCache } from '@edict/policy';
import { ClusterStateModule } from '../cluster/cluster-state.module';
import { NamespaceLabels } from '../cluster/namespace-labels.service';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { AdmissionMetrics } from './admission-metrics';
import { PolicyMetrics } from './policy-metrics';
import { DeprecatedApiMetrics } from './deprecated-api-metrics';
import { ApiResources } from '@edict/kube';
import { MetricsConfiguration } from '@edict/controller-runtime';

/** A kind is known when a policy names it or discovery serves it; a namespace when the informer holds it. */
export const admissionMetricsProvider: FactoryProvider<AdmissionMetrics> = {
  provide: AdmissionMetrics,
  inject: [CONTROLLER_CONFIG, PolicyCache, ApiResources, NamespaceLabels, MetricsConfiguration],
  useFactory: (
    config: ControllerConfig,
    cache: PolicyCache,
    apiResources: ApiResources,
    namespaces: NamespaceLabels,
    configuration: MetricsConfiguration,
  ) =>
    new AdmissionMetrics({
      vocabulary: {
        knowsKind: (kind) => cache.snapshot().namesKind(kind) || apiResources.knowsKind(kind),
        knowsNamespace: (namespace) => namespaces.knows(namespace),
      },
      maxSeries: config.metricsMaxSeries,
      configuration,
    }),
};

/** Kyverno's policy metrics (rule info, policy changes, exceptions, legacy kinds), on the admission metrics' registry. */
export const policyMetricsProvider: FactoryProvider<PolicyMetrics> = {
  provide: PolicyMetrics,
  inject: [PolicyCache, AdmissionMetrics, MetricsConfiguration, CelPolicyCache],
  useFactory: (
    cache: PolicyCache,
    metrics: AdmissionMetrics,
    configuration: MetricsConfiguration,
    cel: CelPolicyCache,
  ) => new PolicyMetrics(cache, metrics, configuration, () => cel.exceptionEntries()),
};

/** kyverno_deprecated_api_requests_total, counted by the policy validation webhooks. */
export const deprecatedApiMetricsProvider: FactoryProvider<DeprecatedApiMetrics> = {
  provide: DeprecatedApiMetrics,
  inject: [AdmissionMetrics, MetricsConfiguration],
  useFactory: (metrics: AdmissionMetrics, configuration: MetricsConfiguration) =>
    new DeprecatedApiMetrics(metrics, configuration),
};

@Module({
  imports: [ClusterStateModule],
  providers: [admissionMetricsProvider, policyMetricsProvider, deprecatedApiMetricsProvider],
  exports: [AdmissionMetrics, PolicyMetrics, DeprecatedApiMetrics],
})
export class AdmissionMetricsModule implements OnModuleDestroy {
  constructor(private readonly policyMetrics: PolicyMetrics) {}

  onModuleDestroy(): void {
    this.policyMetrics.stop();
  }
}
