/**
 * The admission controller: Kube access, leader election (certificate renewal, webhook
 * configurations), the serving certificate, the policy cache, the webhook controller, and the
 * webhook, health and metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TerminusModule } from '@nestjs/terminus';
import { TlsMaterial } from '@edict/cert';
import { KubeResources, CustomResourceDefinitions, CustomResourceDefinitionsModule, ApiResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import {
  clusterModules,
  HealthController,
  METRIC_REGISTRIES,
  MetricsController,
  policyModule,
  PolicyReadiness,
  READINESS_CHECKS,
  servingCertModule,
  WEBHOOK_SERVER_CONFIG,
  WebhookScheduler,
} from '@edict/controller';
import { ADMISSION_CONFIG_SOURCE, AdmissionConfigService, PolicyCache } from '@edict/policy';
import { ReportsMetrics, ReportsModule } from '@edict/reports';
import { WebhooksModule } from '@edict/webhook-config';
import { AfterAdmissionService } from './after/after-admission.service';
import { adminEndpoints } from './admin/admin-endpoints';
import { NamespaceLabels } from './cluster/namespace-labels.service';
import { RoleResolverService } from './cluster/role-resolver.service';
import type { ControllerConfig } from './config/controller-config';
import { webhookNameOptions } from './config/install-name-options';
import { CONTROLLER_CONFIG } from './config/tokens';
import { contextLoaderProviders } from './context/context-loader.providers';
import { ReadinessIndicators } from './health/readiness.indicators';
import { LifecycleState } from './lifecycle/lifecycle-state';
import { AdmissionMetrics } from './metrics/admission-metrics';
import { policyStatusWriterProvider } from './status/policy-status.provider';
import { SynchronizeRequestsService } from './after/synchronize-requests.service';
import { UpdateRequestCount } from './after/update-request-count';
import { InstrumentedEngine } from './webhooks/admission-engine';
import { AdmissionController } from './webhooks/admission.controller';
import { AdmissionService } from './webhooks/admission.service';
import { reviewWorkerCount } from './workers/worker-count';
import { ReviewWorkers } from './workers/review-workers';
import { PolicyValidationController } from './webhooks/policy-validation.controller';
import { PolicyValidationService } from './webhooks/policy-validation.service';

@Module({})
export class AdmissionControllerModule {
  static forRoot(config: ControllerConfig): DynamicModule {
    // Held in constants so the webhook controller can import the very same module instances.
    const certificates = servingCertModule(config);
    const crds = CustomResourceDefinitionsModule.forRoot(config.watchTimeoutSeconds);
    const policies = policyModule(config);
    // Swagger's /admin/* debugging endpoints, only when switched on (EDICT_ADMIN_ENDPOINTS=true).
    const admin = adminEndpoints(config.adminEndpoints);
    return {
      module: AdmissionControllerModule,
      imports: [
        ScheduleModule.forRoot(),
        TerminusModule.forRoot({ logger: false }),
        ...clusterModules(config),
        certificates,
        policies,
        crds,
        // The webhook controller: the leader publishes the configurations from the policy cache.
        WebhooksModule.forRootAsync({
          imports: [certificates, policies, crds],
          inject: [PolicyCache, TlsMaterial, KubeResources, LeaderService, CustomResourceDefinitions],
          useFactory: (
            cache: PolicyCache,
            tls: TlsMaterial,
            resources: KubeResources,
            leader: LeaderService,
            customResources: CustomResourceDefinitions,
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
            caBundle: tls,
            resources,
            leaderGate: leaderGateOf(leader),
            servedTypes: customResources,
          }),
        }),
        // Admission reports: bounded queue, the --maxAdmissionReports cap, idempotent writes.
        ReportsModule.forRootAsync({
          inject: [KubeResources],
          useFactory: (resources: KubeResources) => ({
            options: {
              queueSize: config.reportQueueSize,
              maxAdmissionReports: config.maxAdmissionReports,
              watchTimeoutSeconds: config.watchTimeoutSeconds,
            },
            resources,
          }),
        }),
      ],
      controllers: [
        AdmissionController,
        PolicyValidationController,
        HealthController,
        MetricsController,
        ...admin.controllers,
      ],
      providers: [
        { provide: CONTROLLER_CONFIG, useValue: config },
        { provide: WEBHOOK_SERVER_CONFIG, useValue: config },
        { provide: ADMISSION_CONFIG_SOURCE, useValue: config },
        LifecycleState,
        AdmissionConfigService,
        NamespaceLabels,
        RoleResolverService,
        {
          provide: ApiResources,
          inject: [KubeResources],
          useFactory: (resources: KubeResources) => new ApiResources((path) => resources.http.json({ path })),
        },
        SynchronizeRequestsService,
        UpdateRequestCount,
        AfterAdmissionService,
        {
          provide: AdmissionMetrics,
          inject: [PolicyCache, ApiResources, NamespaceLabels],
          useFactory: (cache: PolicyCache, apiResources: ApiResources, namespaces: NamespaceLabels) =>
            new AdmissionMetrics({
              vocabulary: {
                knowsKind: (kind) => cache.snapshot().namesKind(kind) || apiResources.knowsKind(kind),
                knowsNamespace: (namespace) => namespaces.knows(namespace),
              },
              maxSeries: config.metricsMaxSeries,
            }),
        },
        ...contextLoaderProviders,
        InstrumentedEngine,
        {
          provide: ReviewWorkers,
          inject: [PolicyCache, AdmissionMetrics],
          useFactory: (cache: PolicyCache, metrics: AdmissionMetrics) =>
            new ReviewWorkers(
              {
                size: reviewWorkerCount(config.webhookWorkers),
                recordPolicy: ({ response, background, seconds }, facts) =>
                  metrics.recordPolicy(response, background, facts, seconds),
              },
              cache,
            ),
        },
        AdmissionService,
        PolicyValidationService,
        ReadinessIndicators,
        PolicyReadiness,
        {
          provide: READINESS_CHECKS,
          inject: [ReadinessIndicators, PolicyReadiness],
          useFactory: (readiness: ReadinessIndicators, policies: PolicyReadiness) => [
            () => readiness.lifecycleState(),
            () => readiness.certificate(),
            () => policies.check(),
            () => readiness.webhookTls(),
          ],
        },
        {
          provide: METRIC_REGISTRIES,
          inject: [AdmissionMetrics, ReportsMetrics],
          useFactory: (admission: AdmissionMetrics, reports: ReportsMetrics) => [admission.registry, reports.registry],
        },
        WebhookScheduler,
        policyStatusWriterProvider,
        ...admin.providers,
      ],
    };
  }
}
