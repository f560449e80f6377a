/**
 * The cleanup controller: Kube access, leader election under its own Lease (only the leader runs
 * cleanup policies and the TTL label), Events, and the health and metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { KubeConfig } from '@kubernetes/client-node';
import { KUBE_CONFIG, KubeModule } from '@edict/kube';
import { LeaderModule } from '@edict/leader';
import type { CleanupConfig } from './config/cleanup-config';
import { CLEANUP_CONFIG } from './config/tokens';
import { CleanupEvents } from './events/cleanup-events';
import { HealthController } from './health/health.controller';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { CleanupContextLoaders } from './policies/cleanup-context-loaders';
import { CleanupPolicyController } from './policies/cleanup-policy-controller';
import { TtlController } from './ttl/ttl-controller';

@Module({})
export class CleanupControllerModule {
  static forRoot(config: CleanupConfig): DynamicModule {
    return {
      module: CleanupControllerModule,
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
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: CLEANUP_CONFIG, useValue: config },
        CleanupMetrics,
        CleanupEvents,
        CleanupContextLoaders,
        CleanupPolicyController,
        TtlController,
      ],
    };
  }
}
