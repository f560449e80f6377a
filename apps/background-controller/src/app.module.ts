/**
 * The background controller: Kube access, leader election (only the leader processes
 * UpdateRequests), the policy cache, the ConfigMap, the engine with the cluster's loaders, Events,
 * and the health and metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { KubeConfig } from '@kubernetes/client-node';
import { KUBE_CONFIG, KubeModule } from '@edict/kube';
import { LeaderModule } from '@edict/leader';
import {
  ADMISSION_CONFIG_SOURCE,
  AdmissionConfigService,
  CustomResourceDefinitionsModule,
  PolicyModule,
} from '@edict/policy';
import type { BackgroundConfig } from './config/background-config';
import { BACKGROUND_CONFIG } from './config/tokens';
import { BackgroundEngine } from './engine/background-engine';
import { BackgroundEventRecorders } from './events/background-event-recorders';
import { HealthController } from './health/health.controller';
import { BackgroundMetrics } from './metrics/background-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { PolicyTriggerController } from './policy-triggers/policy-trigger-controller';
import { UpdateRequestController } from './update-requests/update-request-controller';

@Module({})
export class BackgroundControllerModule {
  static forRoot(config: BackgroundConfig): DynamicModule {
    return {
      module: BackgroundControllerModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        KubeModule.forRoot({
          source: config.kubeSource,
          ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
          ...(config.kubeconfigPath ? { kubeconfigPath: config.kubeconfigPath } : {}),
        }),
        LeaderModule.forRootAsync({
          inject: [KUBE_CONFIG],
          useFactory: (kubeConfig: KubeConfig) => ({
            kubeConfig,
            leaseName: config.leaseName,
            leaseNamespace: config.namespace,
            leaseDurationMs: config.leaseDurationMs,
            renewDeadlineMs: config.renewDeadlineMs,
            retryPeriodMs: config.retryPeriodMs,
            ...(config.leaseIdentity ? { identity: config.leaseIdentity } : {}),
          }),
        }),
        PolicyModule.forRoot({
          ...(config.exceptionNamespaces.length > 0 ? { exceptionNamespaces: config.exceptionNamespaces } : {}),
          watchTimeoutSeconds: config.watchTimeoutSeconds,
        }),
        CustomResourceDefinitionsModule.forRoot(config.watchTimeoutSeconds),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: BACKGROUND_CONFIG, useValue: config },
        { provide: ADMISSION_CONFIG_SOURCE, useValue: config },
        AdmissionConfigService,
        BackgroundEngine,
        BackgroundEventRecorders,
        BackgroundMetrics,
        UpdateRequestController,
        PolicyTriggerController,
      ],
    };
  }
}
