/**
 * The admission controller: the controller-app skeleton (Kube access, leader election (certificate
 * renewal, webhook configurations), the serving certificate and its scheduled jobs, the policy
 * cache, health and metrics) and its features: the review webhooks and workers, the work after
 * admission, the context loaders, and the admin endpoints when switched on.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ContextModule } from '@edict/context';
import { ControllerAppModule, PolicyReadiness } from '@edict/controller-runtime';
import { ReportsMetrics } from '@edict/reports';
import { adminEndpoints } from './admin/admin.module';
import { AdmissionPolicyGeneratorModule } from './admission-policy-generator/admission-policy-generator.module';
import { AfterAdmissionModule } from './after-admission/after-admission.module';
import { ClusterStateModule } from './cluster/cluster-state.module';
import type { ControllerConfig } from './config/controller-config';
import { CONTROLLER_CONFIG } from './config/tokens';
import { AdmissionContextModule } from './context.module';
import { ReadinessIndicators } from './health/readiness.indicators';
import { AdmissionMetrics } from './metrics/admission-metrics';
import { AdmissionMetricsModule } from './metrics/admission-metrics.module';
import { ReviewWebhooksModule } from './webhooks/review-webhooks.module';

@Module({})
export class AdmissionControllerModule {
  static forRoot(config: ControllerConfig): DynamicModule {
    return {
      module: AdmissionControllerModule,
      imports: [
        ControllerAppModule.forRoot({
          component: 'admission-controller',
          config,
          configToken: CONTROLLER_CONFIG,
          policies: true,
          webhookServer: config,
          features: [
            ClusterStateModule,
            AdmissionMetricsModule,
            // Context entries: apiCall, globalReference, imageRegistry, and configMap from a cache, in fair shares.
            ContextModule.forRoot(config, {
              admission: { maxLoads: config.maxContextLoads, maxLoadsPerNamespace: config.maxContextLoadsPerNamespace },
            }),
            AdmissionContextModule,
            AfterAdmissionModule,
            ReviewWebhooksModule,
            // ValidatingAdmissionPolicies / MutatingAdmissionPolicies from Kyverno policies, on the leader.
            AdmissionPolicyGeneratorModule,
            // Swagger's /admin/* debugging endpoints, only when switched on (EDICT_ADMIN_ENDPOINTS=true).
            ...adminEndpoints(config.adminEndpoints),
          ],
          readiness: {
            inject: [ReadinessIndicators, PolicyReadiness],
            useFactory: (readiness: ReadinessIndicators, policies: PolicyReadiness) => [
              () => readiness.lifecycleState(),
              () => readiness.certificate(),
              () => policies.check(),
              () => readiness.webhookTls(),
            ],
          },
          metrics: {
            inject: [AdmissionMetrics, ReportsMetrics],
            useFactory: (admission: AdmissionMetrics, reports: ReportsMetrics) => [
              admission.registry,
              reports.registry,
            ],
          },
        }),
      ],
    };
  }
}
