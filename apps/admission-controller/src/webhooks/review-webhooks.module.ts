/**
 * The review webhooks and their workers: AdmissionReviews answered (resource validation and
 * mutation through the engine, in review worker threads; Kyverno's own objects validated), the
 * webhook configurations the leader publishes from the policy cache, the policies' status, and
 * the lifecycle and readiness of serving.
 */
import { Module, type FactoryProvider } from '@nestjs/common';
import { TlsMaterial } from '@edict/cert';
import { TRACING, type Tracing } from '@edict/foundation';
import { KubeResources, CustomResourceDefinitions } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import { AdmissionConfigService, CelPolicyCache, PolicyCache } from '@edict/policy';
import { WebhooksModule } from '@edict/webhook-config';
import { AfterAdmissionModule } from '../after-admission/after-admission.module';
import { ClusterStateModule } from '../cluster/cluster-state.module';
import type { ControllerConfig } from '../config/controller-config';
import { webhookNameOptions } from '../config/install-name-options';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { AdmissionContextModule } from '../context.module';
import { ReadinessIndicators } from '../health/readiness.indicators';
import { LifecycleState } from '../lifecycle/lifecycle-state';
import { AdmissionMetrics } from '../metrics/admission-metrics';
import { AdmissionMetricsModule } from '../metrics/admission-metrics.module';
import { celPolicyStatusWriterProvider, policyStatusWriterProvider } from '../status/policy-status.provider';
import { reviewWorkerCount } from '../workers/worker-count';
import { ReviewWorkers } from '../workers/review-workers';
import { InstrumentedEngine } from './admission-engine';
import { AdmissionController } from './admission.controller';
import { AdmissionService } from './admission.service';
import { ValidatingPolicyController } from './validating-policy.controller';
import { GeneratingPolicyController } from './generating-policy.controller';
import { ValidatingPolicyReviews } from './validating-policy-review';
import { ImageValidatingPolicyController } from './image-validating-policy.controller';
import { ImageValidatingPolicyReviews } from './image-validating-policy-review';
import { MutatingPolicyController } from './mutating-policy.controller';
import { MutatingPolicyReviews } from './mutating-policy-review';
import { PolicyValidationController } from './policy-validation.controller';
import { PolicyValidationService } from './policy-validation.service';

/** The webhook controller: the leader publishes the configurations from the policy cache. */
export const webhookConfigurationsModule = WebhooksModule.forRootAsync({
  inject: [
    CONTROLLER_CONFIG,
    PolicyCache,
    TlsMaterial,
    KubeResources,
    LeaderService,
    CustomResourceDefinitions,
    CelPolicyCache,
    AdmissionConfigService,
  ],
  useFactory: (
    config: ControllerConfig,
    cache: PolicyCache,
    tls: TlsMaterial,
    resources: KubeResources,
    leader: LeaderService,
    customResources: CustomResourceDefinitions,
    celPolicies: CelPolicyCache,
    settings: AdmissionConfigService,
  ) => ({
    options: {
      namespace: config.namespace,
      serviceName: config.serviceName,
      servicePort: config.webhookServicePort,
      defaultTimeoutSeconds: config.webhookTimeoutSeconds,
      ...(config.webhookUrl ? { url: config.webhookUrl } : {}),
      ...(config.deploymentName ? { deploymentName: config.deploymentName } : {}),
      ...webhookNameOptions(config.installName),
    },
    policies: cache,
    celPolicies,
    caBundle: tls,
    resources,
    leaderGate: leaderGateOf(leader),
    servedTypes: customResources,
    settings,
  }),
});

/** The review worker threads, as many as configured, recording each policy's metrics. */
export const reviewWorkersProvider: FactoryProvider<ReviewWorkers> = {
  provide: ReviewWorkers,
  inject: [CONTROLLER_CONFIG, PolicyCache, AdmissionMetrics, { token: TRACING, optional: true }],
  useFactory: (config: ControllerConfig, cache: PolicyCache, metrics: AdmissionMetrics, tracing?: Tracing) =>
    new ReviewWorkers(
      {
        size: reviewWorkerCount(config.webhookWorkers),
        recordPolicy: ({ response, background, seconds }, facts) =>
          metrics.recordPolicy(response, background, facts, seconds),
        // A worker's policy and rule spans are replayed under the review's span.
        ...(tracing ? { tracing } : {}),
      },
      cache,
    ),
};

@Module({
  imports: [
    ClusterStateModule,
    AdmissionMetricsModule,
    AdmissionContextModule,
    AfterAdmissionModule,
    webhookConfigurationsModule,
  ],
  controllers: [
    AdmissionController,
    ValidatingPolicyController,
    GeneratingPolicyController,
    ImageValidatingPolicyController,
    MutatingPolicyController,
    PolicyValidationController,
  ],
  providers: [
    LifecycleState,
    InstrumentedEngine,
    reviewWorkersProvider,
    ValidatingPolicyReviews,
    ImageValidatingPolicyReviews,
    MutatingPolicyReviews,
    AdmissionService,
    PolicyValidationService,
    ReadinessIndicators,
    policyStatusWriterProvider,
    celPolicyStatusWriterProvider,
  ],
  exports: [
    LifecycleState,
    InstrumentedEngine,
    ReviewWorkers,
    AdmissionService,
    ValidatingPolicyReviews,
    ImageValidatingPolicyReviews,
    MutatingPolicyReviews,
    ReadinessIndicators,
    webhookConfigurationsModule,
  ],
})
export class ReviewWebhooksModule {}
